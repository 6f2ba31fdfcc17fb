// The answer's two buttons: copy exactly the answer (sign and digits), and save the whole sheet as
// a PNG.  Kept apart from app.js, which wires them to #copy and #download-png.

export async function copyAnswer(answer, status) {
  const text = answer.textContent;          // exactly the answer: sign and digits, nothing else
  if (!text) return;
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    // No clipboard permission (or an insecure context): the old way, through a selection.
    const area = document.createElement('textarea');
    area.value = text;
    area.setAttribute('readonly', '');
    area.style.position = 'fixed';
    area.style.opacity = '0';
    document.body.append(area);
    area.select();
    const ok = document.execCommand('copy');
    area.remove();
    if (!ok) { status.textContent = 'Copying was refused by the browser: select the answer instead.'; return; }
  }
  const n = text.replace(/^-/, '').length;
  status.textContent = `Copied ${n.toLocaleString('en-US')} digit${n === 1 ? '' : 's'}.`;
}

export async function downloadSheet(sheetView, status) {
  const blob = await sheetView.toBlob();
  if (!blob) { status.textContent = 'There is no sheet to download.'; return; }
  const link = document.createElement('a');
  link.href = URL.createObjectURL(blob);
  link.download = 'sketchpad-sheet.png';
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 60_000);
  status.textContent = `Sheet saved as sketchpad-sheet.png (${Math.round(blob.size / 1024).toLocaleString('en-US')} KB).`;
}
