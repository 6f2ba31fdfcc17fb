// Solving on the server instead of in this page: POST /api/solve/stream, read as server-sent
// events (fetch + a stream reader: EventSource cannot POST).
//
//   const r = await solveOnServer('12345 * 678', { parallel: true, onProgress: (p) => ... });
//   r.result, r.forward_passes, r.batches, r.distinct_views, r.seconds, r.stepper_seconds, r.stepper, r.digits
//
// Events: `accepted` {budget, stepper}, `progress` {batches, forward_passes, distinct_views, seconds,
// queued, expected_batches, percent (batches over that estimate, at most 99), budget: {seconds,
// forward_passes, seconds_used (s), forward_passes_used, share_used (0..1)}} (every ~0.25 s),
// then `result` (what POST /api/solve answers) or `error` {error, status, retry_after}.  A request
// the server refuses before the stream starts (bad input 400, busy 503) is thrown likewise.

export class ServerError extends Error {
  constructor(message, status, retryAfter = null) {
    super(message);
    this.name = status >= 400 && status < 500 ? 'InputError' : 'ServerError';     // 4xx: the request's own
    this.status = status;
    this.retryAfter = retryAfter;
  }
}

function parseEvent(block) {
  let event = 'message';
  const data = [];
  for (const line of block.split('\n')) {
    if (line.startsWith('event:')) event = line.slice(6).trim();
    else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
  }
  return { event, data: data.length ? JSON.parse(data.join('\n')) : null };
}

export async function solveOnServer(expr, { parallel = true, onProgress = null, signal = undefined } = {}) {
  const resp = await fetch('/api/solve/stream', {
    method: 'POST', signal,
    headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream' },
    body: JSON.stringify({ expr, parallel }),
  });
  if (!resp.ok) {
    const body = await resp.json().catch(() => ({}));
    const retry = resp.headers.get('Retry-After');
    throw new ServerError(body.error || `the server answered HTTP ${resp.status}`, resp.status, retry ? Number(retry) : null);
  }
  const reader = resp.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value.replace(/\r\n/g, '\n');
    let cut;
    while ((cut = buffer.indexOf('\n\n')) >= 0) {
      const { event, data } = parseEvent(buffer.slice(0, cut));
      buffer = buffer.slice(cut + 2);
      if (event === 'result') { reader.cancel().catch(() => {}); return data; }
      if (event === 'error') {
        reader.cancel().catch(() => {});
        throw new ServerError(data.error, data.status, data.retry_after ?? null);
      }
      onProgress?.(event, data);
    }
  }
  throw new ServerError('the server closed the stream without an answer', 502);
}

/** What the server solves with (GET /api/health): {stepper, backend, certificate}. */
export async function serverInfo() {
  const r = await fetch('/api/health');
  if (!r.ok) throw new ServerError(`the server is not ready (HTTP ${r.status})`, r.status);
  return r.json();
}
