/-
  Sketchpad.ShippedPar — the parallel mode as shipped returns the sequential result and writes the
  sequential steps (issue 21).

  `PB.drive` (Sketchpad.Batch) is what Python's runtime does in the parallel mode: carry-select
  scans read off their batch (`followScan`), speculative blocks answered from theirs (`specD`),
  lock-step rounds.  `par_eq`: for every stepper under which no carry-select scan leaves its
  family or runs out of columns (`PB.FamOK`: exactly the runs in which Python raises no
  `StepperFault`), the parallel run returns what the sequential program `PB.seq` returns, and the
  steps it writes (`PB.flog`: each scan's followed run, each block's sequential steps, in order)
  are the sequential program's steps.  The carry-select scan read off its batch is
  Sketchpad.Parallel's `selectScan` (`followScan_eq`), whose theorems (`select_scan_eq`,
  `select_scan_halted`) this rests on; a speculative block returns its sequential result whether
  or not it falls back (`specD_out`, as `speculate_eq`).
-/
module

public import Sketchpad.ShippedSeq

@[expose] public noncomputable section

set_option autoImplicit false

namespace Sketchpad

open Prog Drive

variable {α β γ : Type}

/-! ### The carry-select scan read off its batch is `selectScan` -/

theorem inStates_iff (S : States) (op : Op) (c : Cell) : inStates S op c = true ↔ (op, c) ∈ S := by
  induction S with
  | nil => simp [inStates]
  | cons st S ih =>
    obtain ⟨o, cc⟩ := st
    show ((decide (o = op) && decide (cc = c)) || S.any fun st => decide (st.1 = op) && decide (st.2 = c)) = true ↔ _
    rw [Bool.or_eq_true, Bool.and_eq_true, decide_eq_true_iff, decide_eq_true_iff]
    constructor
    · rintro (⟨rfl, rfl⟩ | h)
      · exact List.Mem.head _
      · exact List.Mem.tail _ (ih.mp h)
    · intro h
      rcases List.mem_cons.mp h with e | e
      · exact Or.inl ⟨(Prod.mk.inj e).1.symm, (Prod.mk.inj e).2.symm⟩
      · exact Or.inr (ih.mpr e)

theorem pickState_selCol_none (g : Stepper) (a b : Cell) (op : Op) (c : Cell) :
    ∀ S : States, (op, c) ∉ S → pickState op c (selCol g S a b) = none
  | [], _ => rfl
  | (o, cc) :: S, h => by
    have e0 : selCol g ((o, cc) :: S) a b = ((⟨o, a, b, cc⟩ : View), g ⟨o, a, b, cc⟩) :: selCol g S a b := rfl
    rw [e0, pickState_cons]
    have hne : ¬ (o = op ∧ cc = c) := fun ⟨h1, h2⟩ => h (by rw [h1, h2]; exact List.Mem.head _)
    rw [if_neg hne]
    exact pickState_selCol_none g a b op c S (fun h' => h (List.Mem.tail _ h'))

theorem followG_eq (g : Stepper) (cr : Bool) (S : States) : ∀ (n : Nat) (xs ys : List Cell) (op : Op) (c : Cell),
    followG g cr S n xs ys op c = selFollow cr (selCols g S n xs ys) op c
  | 0, _, _, _, _ => rfl
  | n + 1, xs, ys, op, c => by
    have hcols : selCols g S (n + 1) xs ys = selCol g S (hd xs) (hd ys) :: selCols g S n (tl xs) (tl ys) := rfl
    show (if inStates S op c = true then _ else _) = _
    rw [hcols]
    by_cases hin : inStates S op c = true
    · rw [if_pos hin, selFollow_some cr _ _ op c _ _ (pickState_selCol g (hd xs) (hd ys) op c S ((inStates_iff S op c).mp hin))]
      by_cases hs : (g ⟨op, hd xs, hd ys, c⟩).next.isScan = true
      · rw [if_pos hs, if_pos hs, followG_eq g cr S n]
      · rw [if_neg hs, if_neg hs]
    · rw [if_neg hin]
      have hn : (op, c) ∉ S := fun h => hin ((inStates_iff S op c).mpr h)
      show [] = match pickState op c (selCol g S (hd xs) (hd ys)) with
        | none => []
        | some p => _
      rw [pickState_selCol_none g _ _ op c S hn]

/-- The run a carry-select scan writes, read off its batch, is Sketchpad.Parallel's `selectScan`. -/
theorem followScan_eq (g : Stepper) (sc : Scan) :
    followScan g sc = selectScan g sc.cr sc.S sc.n sc.op sc.xs sc.ys sc.c := by
  obtain ⟨S, n, op, xs, ys, c, cr⟩ := sc
  cases n with
  | zero => rfl
  | succ n =>
    show (if (g ⟨op, hd xs, hd ys, c⟩).next.isScan = true then
        (⟨op, hd xs, hd ys, c⟩, g ⟨op, hd xs, hd ys, c⟩) ::
          followG g cr S n (tl xs) (tl ys) (g ⟨op, hd xs, hd ys, c⟩).next (nextC cr (g ⟨op, hd xs, hd ys, c⟩))
      else [(⟨op, hd xs, hd ys, c⟩, g ⟨op, hd xs, hd ys, c⟩)]) =
      (if (g ⟨op, hd xs, hd ys, c⟩).next.isScan = true then
        (⟨op, hd xs, hd ys, c⟩, g ⟨op, hd xs, hd ys, c⟩) ::
          selFollow cr (selCols g S n (tl xs) (tl ys)) (g ⟨op, hd xs, hd ys, c⟩).next
            (nextC cr (g ⟨op, hd xs, hd ys, c⟩))
      else [(⟨op, hd xs, hd ys, c⟩, g ⟨op, hd xs, hd ys, c⟩)])
    rw [followG_eq]

/-- A carry-select scan that Python completes: its sequential run (with as many columns as the
carry-select run presents) moves only between states of the family and halts. -/
def SelOK (f : Stepper) (sc : Scan) : Prop :=
  1 ≤ sc.n ∧
    (∀ p ∈ out f (scanP sc.n sc.op sc.xs sc.ys sc.c sc.cr), p.2.next.isScan = true →
      (p.2.next, nextC sc.cr p.2) ∈ sc.S) ∧
    (lastNext (out f (scanP sc.n sc.op sc.xs sc.ys sc.c sc.cr)) sc.op).isScan = false

/-- **A completed carry-select scan is the sequential scan** (with Python's sequential limit). -/
theorem followScan_seq (f : Stepper) (sc : Scan) (h : SelOK f sc) :
    followScan f sc = out f (scanP (sc.n + 1) sc.op sc.xs sc.ys sc.c sc.cr) := by
  obtain ⟨h1, h2, h3⟩ := h
  obtain ⟨m, hm⟩ : ∃ m, sc.n = m + 1 := ⟨sc.n - 1, by omega⟩
  rw [followScan_eq, select_scan_eq f sc.cr sc.S sc.n sc.op sc.xs sc.ys sc.c h2]
  rw [hm] at h3 ⊢
  exact (scanP_extend f sc.cr m sc.op sc.xs sc.ys sc.c h3 1).symm

theorem scansP_out (f : Stepper) : ∀ scs : List Scan, (∀ sc ∈ scs, SelOK f sc) →
    out f (PB.scansP scs) = scs.map (followScan f) ∧ log f (PB.scansP scs) = (scs.map (followScan f)).flatten
  | [], _ => ⟨rfl, rfl⟩
  | sc :: scs, h => by
    obtain ⟨i1, i2⟩ := scansP_out f scs (fun s hs => h s (List.Mem.tail _ hs))
    have hsc := followScan_seq f sc (h sc (List.Mem.head _))
    show out f ((scanP (sc.n + 1) sc.op sc.xs sc.ys sc.c sc.cr).bind fun t =>
        (PB.scansP scs).bind fun ts => Prog.done (t :: ts)) = _ ∧
      log f ((scanP (sc.n + 1) sc.op sc.xs sc.ys sc.c sc.cr).bind fun t =>
        (PB.scansP scs).bind fun ts => Prog.done (t :: ts)) = _
    rw [out_bind, out_bind, log_bind, log_bind, i1, i2, ← hsc, scanP_log, ← hsc]
    exact ⟨rfl, by rw [log_done, List.append_nil]; rfl⟩

/-! ### Speculative blocks return the sequential result -/

theorem specD_out (f : Stepper) (m : Nat) (K : γ → Drive α) : ∀ b : Prog γ,
    dout f (specD m f b K) = dout f (K (out f b))
  | .done c => rfl
  | .ask v k => by
    show dout f (if inMask m v = true then specD m f (k (f v)) K else (Drive.lift (Prog.ask v k)).bind K) = _
    by_cases h : inMask m v = true
    · rw [if_pos h]; exact specD_out f m K (k (f v))
    · rw [if_neg h, Drive.dout_bind, dout_lift]

/-! ### Procedures: parallel = sequential -/

namespace PB

/-- No `StepperFault` in the parallel run: every carry-select scan it reaches completes within its
family (the condition of Python's `_scan_select`). -/
def FamOK (f : Stepper) (p : PB α) : Prop :=
  PB.rec (motive := fun _ => Prop) (fun _ => True) (fun v _ ih => ih (f v))
    (fun scs _ ih => (∀ sc ∈ scs, SelOK f sc) ∧ ih (scs.map (followScan f)))
    (fun _ b _ ih => ih (out f b)) (fun n ps _ ih => ih (out f (roundsP n ps))) p

/-- The steps the parallel run writes, in order: each single view's step, each carry-select
scan's followed run, each speculative block's sequential steps, each round's steps. -/
def flog (f : Stepper) (p : PB α) : List (View × Step) :=
  PB.rec (motive := fun _ => List (View × Step)) (fun _ => []) (fun v _ ih => (v, f v) :: ih (f v))
    (fun scs _ ih => (scs.map (followScan f)).flatten ++ ih (scs.map (followScan f)))
    (fun _ b _ ih => log f b ++ ih (out f b)) (fun n ps _ ih => log f (roundsP n ps) ++ ih (out f (roundsP n ps))) p

end PB

/-- **Parallel = sequential, for every procedure of the shipped runtime and every stepper under
which Python's parallel run raises no `StepperFault`**: the parallel run returns the sequential
program's result, and the steps it writes are the sequential program's steps, in order. -/
theorem par_eq (f : Stepper) (p : PB α) (h : p.FamOK f) : dout f p.drive = out f p.seq ∧ p.flog f = log f p.seq := by
  induction p with
  | done a => exact ⟨rfl, rfl⟩
  | ask v k ih =>
    obtain ⟨h1, h2⟩ := ih (f v) h
    exact ⟨h1, by show (v, f v) :: (k (f v)).flog f = (v, f v) :: log f (k (f v)).seq; rw [h2]⟩
  | sel scs k ih =>
    obtain ⟨hs, hk⟩ := h
    obtain ⟨s1, s2⟩ := scansP_out f scs hs
    obtain ⟨h1, h2⟩ := ih (scs.map (followScan f)) hk
    refine ⟨?_, ?_⟩
    · show dout f (k (scs.map (followScan f))).drive = out f ((PB.scansP scs).bind fun rs => (k rs).seq)
      rw [out_bind, s1, h1]
    · show (scs.map (followScan f)).flatten ++ (k (scs.map (followScan f))).flog f =
        log f ((PB.scansP scs).bind fun rs => (k rs).seq)
      rw [log_bind, s1, s2, h2]
  | spec P b k ih =>
    obtain ⟨h1, h2⟩ := ih (out f b) h
    refine ⟨?_, ?_⟩
    · show dout f (specD (probeMask P) f b fun c => (k c).drive) = out f (b.bind fun c => (k c).seq)
      rw [specD_out f _ _ b, out_bind, h1]
    · show log f b ++ (k (out f b)).flog f = log f (b.bind fun c => (k c).seq)
      rw [log_bind, h2]
  | tog n ps k ih =>
    obtain ⟨h1, h2⟩ := ih (out f (roundsP n ps)) h
    refine ⟨?_, ?_⟩
    · show dout f (togD (fun r => (k r).drive) n ps) = out f ((roundsP n ps).bind fun r => (k r).seq)
      rw [(PB.togD_flat f _ n ps).2, out_bind, h1]
    · show log f (roundsP n ps) ++ (k (out f (roundsP n ps))).flog f = log f ((roundsP n ps).bind fun r => (k r).seq)
      rw [log_bind, h2]

/-! ### Each parallel procedure's sequential program is the proven sequential procedure -/

theorem alike_refl (f : Stepper) (p : Prog α) : Alike f p p := ⟨rfl, rfl⟩

theorem alike_trans (f : Stepper) {p q r : Prog α} (h1 : Alike f p q) (h2 : Alike f q r) : Alike f p r :=
  ⟨h1.1.trans h2.1, h1.2.trans h2.2⟩

theorem alike_ask (f : Stepper) (v : View) (k k' : Step → Prog α) (h : Alike f (k (f v)) (k' (f v))) :
    Alike f (Prog.ask v k) (Prog.ask v k') :=
  ⟨h.1, by rw [log_ask, log_ask, h.2]⟩

/-- A single carry-select scan, erased: the sequential scan with Python's sequential limit. -/
theorem selScan_seq (f : Stepper) (S : States) (op : Op) (xs ys : List Cell) (cr : Bool)
    (K : List (View × Step) → PB α) :
    Alike f (selScan S op xs ys cr K).seq
      ((scanP (max xs.length ys.length + 3) op xs ys .blank cr).bind fun t => (K t).seq) := by
  show Alike f (((scanP (max xs.length ys.length + 2 + 1) op xs ys .blank cr).bind fun t =>
      (PB.scansP []).bind fun ts => Prog.done (t :: ts)).bind fun rs => (K (rs.headD [])).seq) _
  refine ⟨?_, ?_⟩
  · rw [out_bind, out_bind, out_bind, out_bind]; rfl
  · rw [log_bind, log_bind, log_bind, out_bind, log_bind]
    show log f (scanP _ op xs ys .blank cr) ++ ([] ++ []) ++ _ = _
    rw [List.append_nil, List.append_nil]; rfl

theorem sgnAddB_seq (f : Stepper) (op : Op) (a b : SNum) : Alike f (sgnAddB op a b).seq (sgnAddP op a b) := by
  refine alike_ask f _ _ _ ?_
  show Alike f (sgnAddKB op a b (f ⟨op, a.1, b.1, .blank⟩)).seq (sgnAddK op a b (f ⟨op, a.1, b.1, .blank⟩))
  generalize f ⟨op, a.1, b.1, .blank⟩ = s
  unfold sgnAddKB sgnAddK
  by_cases hs : s.next = .ADD
  · rw [if_pos hs, if_pos hs]
    exact selScan_seq f _ _ _ _ _ _
  · rw [if_neg hs, if_neg hs]
    refine alike_trans f (selScan_seq f _ _ _ _ _ _) ?_
    show Alike f _ ((compareP a.2 b.2).bind (sgnCmpK op a b))
    unfold compareP
    rw [show ((scanP (max a.2.length b.2.length + 3) .CMPEQ a.2 b.2 .blank false).bind
        fun t => Prog.done (lastSym t)).bind (sgnCmpK op a b) =
        (scanP (max a.2.length b.2.length + 3) .CMPEQ a.2 b.2 .blank false).bind
          (fun t => (Prog.done (lastSym t)).bind (sgnCmpK op a b)) from Prog.bind_assoc _ _ _]
    refine alike_bind f _ _ _ _ (alike_refl f _) ?_
    refine alike_ask f _ _ _ ?_
    generalize f _ = s'
    show Alike f (sgnSubB a b s').seq (sgnSubK a b s')
    unfold sgnSubB sgnSubK
    by_cases h2 : s'.next = .SWAP
    · rw [if_pos h2, if_pos h2]
      exact selScan_seq f _ _ _ _ _ _
    · rw [if_neg h2, if_neg h2]
      exact selScan_seq f _ _ _ _ _ _

theorem zeroB_seq (f : Stepper) (xs : List Cell) (K : Cell → PB α) :
    Alike f (zeroB xs K).seq ((zeroP xs).bind fun z => (K z).seq) := by
  refine alike_trans f (selScan_seq f _ _ _ _ _ _) ?_
  have e : max xs.length ([] : List Cell).length = xs.length := Nat.max_eq_left (Nat.zero_le _)
  rw [e]
  unfold zeroP
  rw [Prog.bind_assoc]
  exact alike_refl f _

theorem incB_seq (f : Stepper) (xs : List Cell) (K : List Cell → PB α) :
    Alike f (incB xs K).seq ((incP .INC xs).bind fun r => (K r).seq) := by
  refine alike_trans f (selScan_seq f _ _ _ _ _ _) ?_
  have e : max xs.length ([] : List Cell).length = xs.length := Nat.max_eq_left (Nat.zero_le _)
  rw [e]
  unfold incP
  rw [Prog.bind_assoc]
  exact alike_refl f _

theorem divGoB_seq (f : Stepper) (b : List Cell) (K : List Cell × List Cell → PB α) :
    ∀ (xs rem q : List Cell), Alike f (divGoB b K xs rem q).seq ((divGo b xs rem q).bind fun p => (K p).seq)
  | [], rem, q => alike_refl f _
  | x :: xs, rem, q => by
    show Alike f ((qdigP b 10 (x :: rem.take b.length) .blank).bind fun p => (divGoB b K xs p.2 (p.1 :: q)).seq)
      (((qdigP b 10 (x :: rem.take b.length) .blank).bind fun p => divGo b xs p.2 (p.1 :: q)).bind fun p => (K p).seq)
    rw [Prog.bind_assoc]
    exact alike_bind f _ _ _ _ (alike_refl f _) (divGoB_seq f b K xs _ _)

/-- Long division in the parallel mode (a speculative batch per quotient digit), erased, is
Divide.lean's `divP`. -/
theorem divB_seq (f : Stepper) (a b : List Cell) (K : List Cell × List Cell → PB α) :
    Alike f (divB a b K).seq ((divP a b).bind fun p => (K p).seq) := by
  unfold divB divP
  by_cases h : a.length < b.length
  · rw [if_pos h, if_pos h, Prog.bind_assoc]
    exact alike_refl f _
  · rw [if_neg h, if_neg h, Prog.bind_assoc]
    refine alike_trans f (divGoB_seq f b _ _ _ _) ?_
    exact alike_refl f _

theorem sdivAdjB_seq (f : Stepper) (b : SNum) (q r : List Cell) (s : Step) :
    Alike f (sdivAdjB b q r s).seq (sdivAdj b q r s) := by
  unfold sdivAdjB sdivAdj
  by_cases h : s.next = .ADJ
  · rw [if_pos h, if_pos h]
    refine alike_trans f (incB_seq f _ _) (alike_bind f _ _ _ _ (alike_refl f _) ?_)
    exact selScan_seq f _ _ _ _ _ _
  · rw [if_neg h, if_neg h]
    exact alike_refl f _

/-- Signed floor division in the parallel mode, erased, is the sequential mode's. -/
theorem divmodB_par (f : Stepper) (a b : SNum) : Alike f (divmodB true a b).seq (divmodB false a b).seq := by
  show Alike f (zeroB b.2 fun z => if z = .zero then PB.done (Except.error PyErr.divZero)
      else divB a.2 b.2 fun qr => zeroB (canon qr.2) fun z' =>
        PB.ask ⟨.SGNDIV, a.1, b.1, z'⟩ fun s => (sdivAdjB b qr.1 (canon qr.2) s).bind fun r => PB.done (Except.ok r)).seq
    ((PB.lift (zeroP b.2)).bind fun z => if z = .zero then PB.done (Except.error PyErr.divZero)
      else (PB.lift ((divP a.2 b.2).bind (sdivSgn a b))).bind fun r => PB.done (Except.ok r)).seq
  refine alike_trans f (zeroB_seq f _ _) ?_
  obtain ⟨s1, s2⟩ := PB.seq_bind (PB.lift (zeroP b.2)) (fun z => if z = .zero then PB.done (Except.error PyErr.divZero)
      else (PB.lift ((divP a.2 b.2).bind (sdivSgn a b))).bind fun r => PB.done (Except.ok r)) f
  rw [PB.seq_lift] at s1 s2
  refine alike_trans f ?_ ⟨s1.symm, s2.symm⟩
  refine alike_bind f _ _ _ _ (alike_refl f _) ?_
  by_cases hz : out f (zeroP b.2) = .zero
  · simp only [if_pos hz]; exact alike_refl f _
  · simp only [if_neg hz]
    obtain ⟨t1, t2⟩ := PB.seq_bind (PB.lift ((divP a.2 b.2).bind (sdivSgn a b)))
      (fun r => PB.done (Except.ok (ε := PyErr) r)) f
    rw [PB.seq_lift] at t1 t2
    refine alike_trans f ?_ ⟨t1.symm, t2.symm⟩
    refine alike_trans f (divB_seq f _ _ _) ?_
    rw [Prog.bind_assoc]
    refine alike_bind f _ _ _ _ (alike_refl f _) ?_
    show Alike f (zeroB _ _).seq ((sdivSgn a b _).bind _)
    refine alike_trans f (zeroB_seq f _ _) ?_
    unfold sdivSgn
    rw [Prog.bind_assoc]
    refine alike_bind f _ _ _ _ (alike_refl f _) ?_
    refine alike_ask f _ _ _ ?_
    obtain ⟨u1, u2⟩ := PB.seq_bind (sdivAdjB b (out f (divP a.2 b.2)).1 (canon (out f (divP a.2 b.2)).2)
      (f ⟨.SGNDIV, a.1, b.1, out f (zeroP (canon (out f (divP a.2 b.2)).2))⟩))
      (fun r => PB.done (Except.ok (ε := PyErr) r)) f
    refine alike_trans f ⟨u1, u2⟩ ?_
    exact alike_bind f _ _ _ _ (sdivAdjB_seq f _ _ _ _) (alike_refl f _)

theorem sqrtGoB_seq (f : Stepper) (K : List Cell → PB α) :
    ∀ (ps : List (List Cell)) (root rem : List Cell),
      Alike f (sqrtGoB K ps root rem).seq ((sqrtGo ps root rem).bind fun r => (K r).seq)
  | [], root, rem => alike_refl f _
  | pr :: ps, root, rem => by
    show Alike f ((oddP root).bind fun odd => (rdigP 10 (pr ++ rem) odd .blank).bind fun dr =>
        (sqrtGoB K ps (dr.1 :: root) (dr.2.take (root.length + 2))).seq)
      (((rowsP .ADD root root).bind fun t => Prog.ask ⟨.ODD, .blank, .blank, .blank⟩ fun s =>
        (rdigP 10 (pr ++ rem) (s.sym :: rowOf t) .blank).bind fun dr =>
          sqrtGo ps (dr.1 :: root) (dr.2.take (root.length + 2))).bind fun r => (K r).seq)
    unfold oddP
    rw [Prog.bind_assoc, Prog.bind_assoc]
    refine alike_bind f _ _ _ _ (alike_refl f _) ?_
    refine alike_ask f _ _ _ ?_
    show Alike f ((rdigP 10 (pr ++ rem) _ .blank).bind fun dr => (sqrtGoB K ps (dr.1 :: root) _).seq)
      (((rdigP 10 (pr ++ rem) _ .blank).bind fun dr => sqrtGo ps (dr.1 :: root) _).bind fun r => (K r).seq)
    rw [Prog.bind_assoc]
    exact alike_bind f _ _ _ _ (alike_refl f _) (sqrtGoB_seq f K ps _ _)

/-- The square root in the parallel mode (two speculative batches per root digit), erased, is the
sequential mode's. -/
theorem isqrtB_par (f : Stepper) (a : SNum) : Alike f (isqrtB true a).seq (isqrtB false a).seq := by
  unfold isqrtB
  by_cases hn : a.1 = .minus ∧ a.2 ≠ [.d0]
  · rw [if_pos hn, if_pos hn]; exact alike_refl f _
  · rw [if_neg hn, if_neg hn]
    obtain ⟨t1, t2⟩ := PB.seq_bind (PB.lift (isqrtP a)) (fun r => PB.done (Except.ok (ε := PyErr) r)) f
    rw [PB.seq_lift] at t1 t2
    refine alike_trans f ?_ ⟨t1.symm, t2.symm⟩
    show Alike f (Prog.ask ⟨.ABS, a.1, .blank, .blank⟩ fun s =>
        (sqrtGoB (fun root => PB.done (Except.ok (s.sym, canon root))) (pairsOf a.2).reverse [] []).seq)
      ((Prog.ask ⟨.ABS, a.1, .blank, .blank⟩ (isqrtK a)).bind fun r => Prog.done (Except.ok r))
    refine alike_ask f _ _ _ ?_
    refine alike_trans f (sqrtGoB_seq f _ _ _ _) ?_
    show Alike f _ (((sqrtP a.2).bind (isqrtDone _)).bind _)
    rw [Prog.bind_assoc]
    exact alike_refl f _

theorem gcdRound_seq (f : Stepper) (xs ys : List Cell) (G : Option (List Cell × List Cell) → PB α) :
    Alike f ((gcdRoundB xs ys).seq.bind fun o => (G o).seq)
      ((zeroP ys).bind fun z => if z = .zero then (G none).seq
        else (divP xs ys).bind fun qr => (G (some (ys, canon qr.2))).seq) := by
  have h1 := zeroB_seq f ys (fun z => if z = .zero then PB.done none
    else divB xs ys fun qr => PB.done (some (ys, canon qr.2)))
  refine alike_trans f (alike_bind f _ _ (fun o => (G o).seq) (fun o => (G o).seq) h1 (alike_refl f _)) ?_
  rw [Prog.bind_assoc]
  refine alike_bind f _ _ _ _ (alike_refl f _) ?_
  by_cases hz : out f (zeroP ys) = .zero
  · simp only [if_pos hz]; exact alike_refl f _
  · simp only [if_neg hz]
    refine alike_trans f (alike_bind f _ _ (fun o => (G o).seq) (fun o => (G o).seq) (divB_seq f xs ys _) (alike_refl f _)) ?_
    rw [Prog.bind_assoc]
    exact alike_refl f _

theorem gcdLoopB_seq (f : Stepper) (K : List Cell → PB α) : ∀ (n : Nat) (xs ys : List Cell),
    Alike f (gcdLoopB K n xs ys).seq ((gcdLoopP n xs ys).bind fun g => (K g).seq)
  | 0, xs, ys => alike_refl f _
  | n + 1, xs, ys => by
    have e : gcdLoopB K (n + 1) xs ys = (gcdRoundB xs ys).bind (gcdNextB K (gcdLoopB K n) xs) := rfl
    rw [e]
    obtain ⟨s1, s2⟩ := PB.seq_bind (gcdRoundB xs ys) (gcdNextB K (gcdLoopB K n) xs) f
    refine alike_trans f ⟨s1, s2⟩ ?_
    refine alike_trans f (gcdRound_seq f xs ys _) ?_
    show Alike f _ (((zeroP ys).bind (gcdK (gcdLoopP n) xs ys)).bind _)
    rw [Prog.bind_assoc]
    refine alike_bind f _ _ _ _ (alike_refl f _) ?_
    unfold gcdK
    by_cases hz : out f (zeroP ys) = .zero
    · simp only [if_pos hz]; exact alike_refl f _
    · simp only [if_neg hz]
      rw [Prog.bind_assoc]
      exact alike_bind f _ _ _ _ (alike_refl f _) (gcdLoopB_seq f K n _ _)

/-- Gcd in the parallel mode (carry-select zero tests, speculative quotient digits), erased, is
Gcd.lean's `gcdP`. -/
theorem gcdB_par (f : Stepper) (a b : SNum) : Alike f (gcdB true a b).seq (gcdP a b) := by
  show Alike f (Prog.ask ⟨.ABS, a.1, .blank, .blank⟩ fun s =>
      (gcdLoopB (fun g => PB.done (s.sym, canon g)) (5 * (a.2.length + b.2.length) + 10) a.2 b.2).seq)
    (Prog.ask ⟨.ABS, a.1, .blank, .blank⟩ (gcdAbsK a b))
  refine alike_ask f _ _ _ ?_
  exact gcdLoopB_seq f _ _ _ _

/-! ### The evaluator in the parallel mode -/

theorem alike_pb_bind (f : Stepper) (A B : PB α) (K K' : α → PB β) (hA : Alike f A.seq B.seq)
    (hK : ∀ a, Alike f (K a).seq (K' a).seq) : Alike f (A.bind K).seq (B.bind K').seq := by
  obtain ⟨a1, a2⟩ := PB.seq_bind A K f
  obtain ⟨b1, b2⟩ := PB.seq_bind B K' f
  refine alike_trans f ⟨a1, a2⟩ (alike_trans f ?_ ⟨b1.symm, b2.symm⟩)
  exact alike_bind f _ _ _ _ hA (hK _)

/-- No `*`: in the parallel mode a product adds its partial rows as a tree, other sums than the
sequential chain's (by design), so its sequential program is not `mulP`. -/
def NoMul : Expr Op1x Op2x → Prop
  | .lit _ => True
  | .un _ e => NoMul e
  | .bin o e1 e2 => o ≠ .mul ∧ NoMul e1 ∧ NoMul e2

theorem binB_par (f : Stepper) (o : Op2x) (ho : o ≠ .mul) (x y : SNum) :
    Alike f (binB true o x y).seq (binB false o x y).seq := by
  cases o with
  | add =>
    refine alike_pb_bind f (sgnAddB .SGNADD x y) (PB.lift (sgnAddP .SGNADD x y))
      (fun r => PB.done (Except.ok r)) (fun r => PB.done (Except.ok r)) ?_ fun _ => alike_refl f _
    rw [show (PB.lift (sgnAddP .SGNADD x y)).seq = sgnAddP .SGNADD x y from PB.seq_lift _]
    exact sgnAddB_seq f _ _ _
  | sub =>
    refine alike_pb_bind f (sgnAddB .SGNSUB x y) (PB.lift (sgnAddP .SGNSUB x y))
      (fun r => PB.done (Except.ok r)) (fun r => PB.done (Except.ok r)) ?_ fun _ => alike_refl f _
    rw [show (PB.lift (sgnAddP .SGNSUB x y)).seq = sgnAddP .SGNSUB x y from PB.seq_lift _]
    exact sgnAddB_seq f _ _ _
  | mul => exact absurd rfl ho
  | quot => exact alike_pb_bind f _ _ _ _ (divmodB_par f x y) fun _ => alike_refl f _
  | rem => exact alike_pb_bind f _ _ _ _ (divmodB_par f x y) fun _ => alike_refl f _
  | gcd =>
    refine alike_pb_bind f (gcdB true x y) (PB.lift (gcdP x y))
      (fun r => PB.done (Except.ok r)) (fun r => PB.done (Except.ok r)) ?_ fun _ => alike_refl f _
    rw [show (PB.lift (gcdP x y)).seq = gcdP x y from PB.seq_lift _]
    exact gcdB_par f _ _

theorem solveB_par (f : Stepper) (L : Limits) : ∀ e : Expr Op1x Op2x, NoMul e →
    Alike f (solveB true L e).seq (solveB false L e).seq
  | .lit _, _ => alike_refl f _
  | .un .neg e, h => alike_pb_bind f _ _ _ _ (solveB_par f L e h) fun _ => alike_refl f _
  | .un .sqrt e, h => alike_pb_bind f _ _ _ _ (solveB_par f L e h) fun r => by
      cases r with
      | error x => exact alike_refl f _
      | ok x =>
        show Alike f (match checkNums L (some .sqrt) [x] with
            | some err => PB.done (Except.error err)
            | none => isqrtB true x).seq
          (match checkNums L (some .sqrt) [x] with
            | some err => PB.done (Except.error err)
            | none => isqrtB false x).seq
        cases checkNums L (some .sqrt) [x] with
        | some err => exact alike_refl f _
        | none => exact isqrtB_par f x
  | .bin o e1 e2, ⟨ho, h1, h2⟩ => alike_pb_bind f _ _ _ _ (solveB_par f L e1 h1) fun r1 => by
      cases r1 with
      | error x => exact alike_refl f _
      | ok x =>
        refine alike_pb_bind f _ _ _ _ (solveB_par f L e2 h2) fun r2 => ?_
        cases r2 with
        | error y => exact alike_refl f _
        | ok y =>
          show Alike f (match checkNums L (quadOf o) [x, y] with
              | some err => PB.done (Except.error err)
              | none => binB true o x y).seq
            (match checkNums L (quadOf o) [x, y] with
              | some err => PB.done (Except.error err)
              | none => binB false o x y).seq
          cases checkNums L (quadOf o) [x, y] with
          | some err => exact alike_refl f _
          | none => exact binB_par f o ho x y

/-- **The parallel solve (the default mode) is the sequential solve**, for every expression
without `*` and every stepper under which Python's parallel run raises no `StepperFault`: the
same result (value or `InputError`), and the steps it writes are the sequential solve's steps,
in order (the sequential solve's batches, flattened). -/
theorem solve_par_seq (f : Stepper) (L : Limits) (e : Expr Op1x Op2x) (hm : NoMul e)
    (hfam : (solveTop true L e).FamOK f) :
    dout f (solveTop true L e).drive = dout f (solveTop false L e).drive ∧
      (solveTop true L e).flog f = (dlog f (solveTop false L e).drive).flatten := by
  obtain ⟨p1, p2⟩ := par_eq f _ hfam
  obtain ⟨q1, q2⟩ := PB.seq_flat f _ (noPar_solveTop L e)
  have ha : Alike f (solveTop true L e).seq (solveTop false L e).seq :=
    alike_pb_bind f _ _ _ _ (solveB_par f L e hm) fun _ => alike_refl f _
  rw [p1, p2, q1, q2]
  exact ⟨ha.1, ha.2⟩

/-- **The default mode's own theorem** (without `*`): a stepper exact on the finite view set V
whose parallel run raises no `StepperFault` evaluates every expression Python evaluates (canonical
signed leaves of any lengths, no division by zero, no square root of a negative number) in the
parallel mode to the expression's value, writing exactly the steps of the reference's sequential
evaluation. -/
theorem solve_par_of_V (f : Stepper) (hf : ∀ v ∈ V, f v = refStep v) (L : Limits) (e : Expr Op1x Op2x)
    (hm : NoMul e) (hl : CLeavesX e) (hd : PyOK e) (hfam : (solveTop true L e).FamOK f) (x : SNum)
    (hx : dout f (solveTop true L e).drive = .ok x) :
    x.val = Expr.sem procs1x procs2x e ∧ (solveTop true L e).flog f = log refStep (evalP procs1x procs2x e) := by
  obtain ⟨s1, s2⟩ := solve_par_seq f L e hm hfam
  rw [s1] at hx
  obtain ⟨g1, g2⟩ := solve_seq_eval f L e x hx
  obtain ⟨v1, v2⟩ := evaluator_all_of_V f hf e hl hd
  refine ⟨by rw [g2, v2], ?_⟩
  rw [s2, g1]
  exact (out_eq_of_steps f refStep _ v1).2

end Sketchpad
