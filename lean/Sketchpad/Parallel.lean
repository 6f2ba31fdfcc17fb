/-
  Sketchpad.Parallel — issue 15: the runtime's parallel mode writes the sequential sheet.

  The Python runtime (`sketchpad/runtime.py`, `PARALLEL`) has three parallel devices:

  * **Carry-select scans** (`scan` → `_scan_select`, `select_probes`): one batch presents the
    first column under its real state and every later column under every state of the scan's
    family (`FAMILIES`, `MUL_CARRIES`); then the states the steps emit are followed, writing
    only the followed steps.  Modelled by `selectScan`; `select_scan_eq`: for every stepper
    whose sequential run only moves between states of the family, the followed run *is* the
    sequential run (`scanP`), column for column.  Instances: additions and subtractions
    (`select_rows_eq`, and with Python's column limit `sel_add_exact`, `sel_sub_exact`) and
    partial-product rows (`sel_mul_row_exact`).
  * **The sum tree of a product** (`_sum_tree`): the partial rows are added pairwise, level by
    level, not one after another.  This writes *other* sum rows than the sequential product
    (by design, see tests/test_parallel_digits.py); what is proven is that the partial rows are
    the sequential ones and the product row denotes the same number (`par_mul_exact`).
  * **Speculation** (`speculate`): one batch presents a list of probe views; then the
    *sequential* code of the block runs, each view it asks answered with the step that view got
    in the batch, falling back to plain sequential batches at the first view the batch lacks.
    Modelled by `specOut`/`specLog`; `speculate_eq`: for every stepper and every probe list,
    the block returns the sequential result and writes the sequential steps (the stepper is a
    function of the view: a batch answers each view `v` with `f v`).  `parallel_eq` lifts this
    to any procedure built from asks and speculative blocks (`PProg`, erased by `PProg.seq`).
    The trials of one quotient or root digit (`_quotient_digit`, `_root_digit`) are `trialLoopP`;
    `trial_speculate_eq` is the instance that `divide_rows`/`sqrt_rows` use, and
    `trial_select` says the sequential loop returns the candidate selected from the chain of
    trials (the row before the first trial whose `DQ` step halts).
-/
module

public import Sketchpad.Compose
public import Sketchpad.Driver
public import Sketchpad.Compare
public import Sketchpad.Signed

@[expose] public noncomputable section

set_option autoImplicit false
set_option maxRecDepth 100000

namespace Sketchpad

open Prog

/-! ### Column budgets: a scan that halted is unchanged by more columns -/

/-- A scan that halted within `n + 1` columns is the same scan with any more columns. -/
theorem trace_extend (f : Stepper) (n : Nat) : ∀ (op : Op) (xs ys : List Cell) (c : Cell),
    (lastNext (trace f (n + 1) op xs ys c) op).isScan = false →
      ∀ m, trace f (n + 1 + m) op xs ys c = trace f (n + 1) op xs ys c := by
  induction n with
  | zero =>
    intro op xs ys c h m
    cases hs : (f ⟨op, hd xs, hd ys, c⟩).next.isScan with
    | false =>
      rw [show 0 + 1 + m = m + 1 by omega, trace_halt f m op xs ys c hs,
        trace_halt f 0 op xs ys c hs]
    | true =>
      rw [trace_cont f 0 op xs ys c hs, trace_zero, lastNext_cons] at h
      have h' : (f ⟨op, hd xs, hd ys, c⟩).next.isScan = false := h
      rw [hs] at h'
      exact absurd h' (by decide)
  | succ n ih =>
    intro op xs ys c h m
    cases hs : (f ⟨op, hd xs, hd ys, c⟩).next.isScan with
    | false =>
      rw [show n + 1 + 1 + m = (n + 1 + m) + 1 by omega, trace_halt f (n + 1 + m) op xs ys c hs,
        trace_halt f (n + 1) op xs ys c hs]
    | true =>
      rw [trace_cont f (n + 1) op xs ys c hs, lastNext_cons] at h
      rw [show n + 1 + 1 + m = (n + 1 + m) + 1 by omega, trace_cont f (n + 1 + m) op xs ys c hs,
        trace_cont f (n + 1) op xs ys c hs, ih _ _ _ _ h m]

/-- The form the procedures use: a scan that halted within `n + 2` columns is the same scan
with `n + 3`. -/
theorem trace_extend1 (f : Stepper) (n : Nat) (op : Op) (xs ys : List Cell) (c : Cell)
    (h : (lastNext (trace f (n + 2) op xs ys c) op).isScan = false) :
    trace f (n + 3) op xs ys c = trace f (n + 2) op xs ys c :=
  trace_extend f (n + 1) op xs ys c h 1

/-- A scan of `n` columns reads only the first `n` cells of its second row. -/
theorem trace_pad (f : Stepper) (n : Nat) : ∀ (op : Op) (xs ys : List Cell) (c : Cell)
    (t : List Cell), n ≤ ys.length → trace f n op xs (ys ++ t) c = trace f n op xs ys c := by
  induction n with
  | zero => intro op xs ys c t _; rfl
  | succ n ih =>
    intro op xs ys c t hn
    cases ys with
    | nil =>
      have h0 : ([] : List Cell).length = 0 := rfl
      omega
    | cons y ys' =>
      have hn' : n ≤ ys'.length := by
        have : (y :: ys').length = ys'.length + 1 := rfl
        omega
      rw [List.cons_append]
      cases hs : (f ⟨op, hd xs, y, c⟩).next.isScan with
      | false =>
        rw [trace_halt f n op xs (y :: (ys' ++ t)) c hs, trace_halt f n op xs (y :: ys') c hs]
        try rfl
      | true =>
        rw [trace_cont f n op xs (y :: (ys' ++ t)) c hs, trace_cont f n op xs (y :: ys') c hs]
        exact congrArg (List.cons (⟨op, hd xs, y, c⟩, f ⟨op, hd xs, y, c⟩))
          (ih (f ⟨op, hd xs, y, c⟩).next (tl xs) ys' (f ⟨op, hd xs, y, c⟩).flag t hn')

theorem replicate_succ_right (a : Cell) : ∀ n, List.replicate (n + 1) a = List.replicate n a ++ [a]
  | 0 => rfl
  | n + 1 => by
    show a :: List.replicate (n + 1) a = a :: List.replicate n a ++ [a]
    rw [replicate_succ_right a n, List.cons_append]

/-! ### Carry-select scans (`_scan_select`), for any family of states -/

/-- The states `(operation, carry)` a carry-select scan presents each column under (Python's
`FAMILIES[op]`, or `(MUL, c)` for `c` in `MUL_CARRIES[d]`). -/
abbrev States := List (Op × Cell)

/-- One column `(a, b)` under every state of the family: independent views of one batch. -/
def selCol (f : Stepper) (S : States) (a b : Cell) : List (View × Step) :=
  S.map fun st => ((⟨st.1, a, b, st.2⟩ : View), f ⟨st.1, a, b, st.2⟩)

/-- Every column of the batch after the first (`select_probes`, columns `start+1 .. limit-1`). -/
def selCols (f : Stepper) (S : States) : Nat → List Cell → List Cell → List (List (View × Step))
  | 0, _, _ => []
  | n + 1, xs, ys => selCol f S (hd xs) (hd ys) :: selCols f S n (tl xs) (tl ys)

/-- The probe of a column under the state `(op, c)` (Python's `position[state]`). -/
def pickState (op : Op) (c : Cell) : List (View × Step) → Option (View × Step)
  | [] => none
  | p :: t => if p.1.op = op ∧ p.1.c = c then some p else pickState op c t

/-- Follow the emitted states through the batch: selection only, no stepper call.  A state
outside the family stops the run (Python raises `StepperFault`). -/
def selFollow (cr : Bool) : List (List (View × Step)) → Op → Cell → List (View × Step)
  | [], _, _ => []
  | col :: rest, op, c =>
    match pickState op c col with
    | none => []
    | some p => if p.2.next.isScan = true then p :: selFollow cr rest p.2.next (nextC cr p.2) else [p]

/-- The carry-select run of a scan of at most `n` columns: the first column under its real
state, then the followed states (`_scan_select`; `cr`: whether the scan has a carry row). -/
def selectScan (f : Stepper) (cr : Bool) (S : States) :
    Nat → Op → List Cell → List Cell → Cell → List (View × Step)
  | 0, _, _, _, _ => []
  | n + 1, op, xs, ys, c =>
    if (f ⟨op, hd xs, hd ys, c⟩).next.isScan = true then
      (⟨op, hd xs, hd ys, c⟩, f ⟨op, hd xs, hd ys, c⟩) ::
        selFollow cr (selCols f S n (tl xs) (tl ys)) (f ⟨op, hd xs, hd ys, c⟩).next
          (nextC cr (f ⟨op, hd xs, hd ys, c⟩))
    else [(⟨op, hd xs, hd ys, c⟩, f ⟨op, hd xs, hd ys, c⟩)]

theorem pickState_cons (op : Op) (c : Cell) (p : View × Step) (t : List (View × Step)) :
    pickState op c (p :: t) = if p.1.op = op ∧ p.1.c = c then some p else pickState op c t := rfl

theorem pickState_selCol (f : Stepper) (a b : Cell) (op : Op) (c : Cell) :
    ∀ S : States, (op, c) ∈ S → pickState op c (selCol f S a b) = some (⟨op, a, b, c⟩, f ⟨op, a, b, c⟩)
  | [], h => by cases h
  | (o, cc) :: S, h => by
    have e0 : selCol f ((o, cc) :: S) a b =
        ((⟨o, a, b, cc⟩ : View), f ⟨o, a, b, cc⟩) :: selCol f S a b := rfl
    rw [e0, pickState_cons]
    by_cases e : o = op ∧ cc = c
    · obtain ⟨rfl, rfl⟩ := e
      exact if_pos ⟨rfl, rfl⟩
    · have h' : (op, c) ∈ S := by
        rcases List.mem_cons.mp h with h1 | h1
        · exact absurd ⟨(Prod.mk.inj h1).1.symm, (Prod.mk.inj h1).2.symm⟩ e
        · exact h1
      exact (if_neg e).trans (pickState_selCol f a b op c S h')

theorem selFollow_some (cr : Bool) (col : List (View × Step)) (rest : List (List (View × Step)))
    (op : Op) (c : Cell) (v : View) (s : Step) (h : pickState op c col = some (v, s)) :
    selFollow cr (col :: rest) op c =
      if s.next.isScan = true then (v, s) :: selFollow cr rest s.next (nextC cr s) else [(v, s)] := by
  first
    | (simp only [selFollow, h]; done)
    | (rw [selFollow, h]; done)
    | (unfold selFollow; rw [h])

/-- Following the batch from a state of the family gives the sequential scan, as long as the
sequential scan only moves between states of the family. -/
theorem selFollow_eq (f : Stepper) (cr : Bool) (S : States) (n : Nat) :
    ∀ (op : Op) (xs ys : List Cell) (c : Cell), (op, c) ∈ S →
      (∀ p ∈ out f (scanP n op xs ys c cr), p.2.next.isScan = true → (p.2.next, nextC cr p.2) ∈ S) →
      selFollow cr (selCols f S n xs ys) op c = out f (scanP n op xs ys c cr) := by
  induction n with
  | zero => intro op xs ys c _ _; rfl
  | succ n ih =>
    intro op xs ys c hm hS
    have hcols : selCols f S (n + 1) xs ys =
        selCol f S (hd xs) (hd ys) :: selCols f S n (tl xs) (tl ys) := rfl
    rw [hcols, selFollow_some cr _ _ op c _ _ (pickState_selCol f (hd xs) (hd ys) op c S hm)]
    by_cases hs : (f ⟨op, hd xs, hd ys, c⟩).next.isScan = true
    case neg =>
      have hf' : (f ⟨op, hd xs, hd ys, c⟩).next.isScan = false := by
        revert hs
        cases (f ⟨op, hd xs, hd ys, c⟩).next.isScan <;> decide
      rw [if_neg hs, (scanP_halt f n op xs ys c cr hf').1]
    case pos =>
      have hrun := (scanP_cont f n op xs ys c cr hs).1
      have hm' : ((f ⟨op, hd xs, hd ys, c⟩).next, nextC cr (f ⟨op, hd xs, hd ys, c⟩)) ∈ S :=
        hS (⟨op, hd xs, hd ys, c⟩, f ⟨op, hd xs, hd ys, c⟩)
          (by rw [hrun]; exact List.Mem.head _) hs
      have htail : ∀ p ∈ out f (scanP n (f ⟨op, hd xs, hd ys, c⟩).next (tl xs) (tl ys)
          (nextC cr (f ⟨op, hd xs, hd ys, c⟩)) cr),
          p.2.next.isScan = true → (p.2.next, nextC cr p.2) ∈ S :=
        fun p hp => hS p (by rw [hrun]; exact List.Mem.tail _ hp)
      rw [if_pos hs, hrun, ih _ _ _ _ hm' htail]

/-- **Carry-select = sequential, for any family.** If every state the sequential scan moves to
(the next operation and, with a carry row, the flag) is a state of the family `S`, the
carry-select run (one batch, then selection) is the sequential run: the same (view, step)
pairs column by column, so the same sheet and the same returned step.  For every stepper. -/
theorem select_scan_eq (f : Stepper) (cr : Bool) (S : States) (n : Nat) (op : Op)
    (xs ys : List Cell) (c : Cell)
    (hS : ∀ p ∈ out f (scanP n op xs ys c cr), p.2.next.isScan = true →
      (p.2.next, nextC cr p.2) ∈ S) :
    selectScan f cr S n op xs ys c = out f (scanP n op xs ys c cr) := by
  cases n with
  | zero => rfl
  | succ n =>
    show (if (f ⟨op, hd xs, hd ys, c⟩).next.isScan = true then _ else _) = _
    by_cases hs : (f ⟨op, hd xs, hd ys, c⟩).next.isScan = true
    case neg =>
      have hf' : (f ⟨op, hd xs, hd ys, c⟩).next.isScan = false := by
        revert hs
        cases (f ⟨op, hd xs, hd ys, c⟩).next.isScan <;> decide
      rw [if_neg hs, (scanP_halt f n op xs ys c cr hf').1]
    case pos =>
      have hrun := (scanP_cont f n op xs ys c cr hs).1
      have hm' : ((f ⟨op, hd xs, hd ys, c⟩).next, nextC cr (f ⟨op, hd xs, hd ys, c⟩)) ∈ S :=
        hS (⟨op, hd xs, hd ys, c⟩, f ⟨op, hd xs, hd ys, c⟩)
          (by rw [hrun]; exact List.Mem.head _) hs
      have htail : ∀ p ∈ out f (scanP n (f ⟨op, hd xs, hd ys, c⟩).next (tl xs) (tl ys)
          (nextC cr (f ⟨op, hd xs, hd ys, c⟩)) cr),
          p.2.next.isScan = true → (p.2.next, nextC cr p.2) ∈ S :=
        fun p hp => hS p (by rw [hrun]; exact List.Mem.tail _ hp)
      rw [if_pos hs, hrun, selFollow_eq f cr S n _ _ _ _ hm' htail]

/-- The sheet, too: the carry-select run writes the steps the sequential run writes. -/
theorem select_scan_log (f : Stepper) (cr : Bool) (S : States) (n : Nat) (op : Op)
    (xs ys : List Cell) (c : Cell)
    (hS : ∀ p ∈ out f (scanP n op xs ys c cr), p.2.next.isScan = true →
      (p.2.next, nextC cr p.2) ∈ S) :
    selectScan f cr S n op xs ys c = log f (scanP n op xs ys c cr) := by
  rw [scanP_log]
  exact select_scan_eq f cr S n op xs ys c hS

/-- A scan program that halted within `n + 1` columns is the same scan with any more columns
(with or without a carry row). -/
theorem scanP_extend (f : Stepper) (cr : Bool) (n : Nat) : ∀ (op : Op) (xs ys : List Cell) (c : Cell),
    (lastNext (out f (scanP (n + 1) op xs ys c cr)) op).isScan = false →
      ∀ m, out f (scanP (n + 1 + m) op xs ys c cr) = out f (scanP (n + 1) op xs ys c cr) := by
  induction n with
  | zero =>
    intro op xs ys c h m
    cases hs : (f ⟨op, hd xs, hd ys, c⟩).next.isScan with
    | false =>
      rw [show 0 + 1 + m = m + 1 by omega, (scanP_halt f m op xs ys c cr hs).1,
        (scanP_halt f 0 op xs ys c cr hs).1]
    | true =>
      rw [(scanP_cont f 0 op xs ys c cr hs).1, lastNext_cons] at h
      have h' : (f ⟨op, hd xs, hd ys, c⟩).next.isScan = false := h
      rw [hs] at h'
      exact absurd h' (by decide)
  | succ n ih =>
    intro op xs ys c h m
    cases hs : (f ⟨op, hd xs, hd ys, c⟩).next.isScan with
    | false =>
      rw [show n + 1 + 1 + m = (n + 1 + m) + 1 by omega, (scanP_halt f (n + 1 + m) op xs ys c cr hs).1,
        (scanP_halt f (n + 1) op xs ys c cr hs).1]
    | true =>
      rw [(scanP_cont f (n + 1) op xs ys c cr hs).1, lastNext_cons] at h
      rw [show n + 1 + 1 + m = (n + 1 + m) + 1 by omega, (scanP_cont f (n + 1 + m) op xs ys c cr hs).1,
        (scanP_cont f (n + 1) op xs ys c cr hs).1, ih _ _ _ _ h m]

/-- **A carry-select scan that completes is the sequential scan of any larger budget.**
Python's carry-select scan presents one column fewer than the sequential scan may use and
raises `StepperFault` if no step has halted by then; when it completes (its last step names a
control word), it is the sequential scan however many more columns that one could use. -/
theorem select_scan_halted (f : Stepper) (cr : Bool) (S : States) (n : Nat) (op : Op)
    (xs ys : List Cell) (c : Cell)
    (hS : ∀ p ∈ out f (scanP (n + 1) op xs ys c cr), p.2.next.isScan = true →
      (p.2.next, nextC cr p.2) ∈ S)
    (hhalt : (lastNext (selectScan f cr S (n + 1) op xs ys c) op).isScan = false) (m : Nat) :
    selectScan f cr S (n + 1) op xs ys c = out f (scanP (n + 1 + m) op xs ys c cr) := by
  have e := select_scan_eq f cr S (n + 1) op xs ys c hS
  rw [e] at hhalt ⊢
  exact (scanP_extend f cr n op xs ys c hhalt m).symm

/-- Carry-select for a stepper exact on a view set `VP` that holds every view of the reference's
sequential scan, when the reference moves only between states of the family from the views of
`VP`: carry-select = sequential = reference. -/
theorem select_scan_exact (f : Stepper) (cr : Bool) (S : States) (VP : View → Prop)
    (hfam : ∀ v, VP v → (refStep v).next.isScan = true →
      ((refStep v).next, nextC cr (refStep v)) ∈ S)
    (hexact : ∀ v, VP v → f v = refStep v) (n : Nat) (op : Op) (xs ys : List Cell) (c : Cell)
    (hclosed : ∀ x ∈ log refStep (scanP n op xs ys c cr), VP x.1) :
    selectScan f cr S n op xs ys c = out f (scanP n op xs ys c cr) ∧
      out f (scanP n op xs ys c cr) = out refStep (scanP n op xs ys c cr) := by
  obtain ⟨e1, _⟩ := run_exact f VP (scanP n op xs ys c cr) hclosed hexact
  refine ⟨select_scan_eq f cr S n op xs ys c ?_, e1⟩
  intro p hp hs
  rw [e1, ← scanP_log] at hp
  have hv := hclosed p hp
  have hp2 : p.2 = refStep p.1 := log_snd refStep _ p hp
  rw [hp2] at hs ⊢
  exact hfam p.1 hv hs

/-! ### Additions and subtractions: the family `(op, blank)`, `(op, 1)` -/

/-- `FAMILIES[ADD]`, `FAMILIES[SUB]`. -/
def rowStates (op : Op) : States := [(op, .blank), (op, .d1)]

/-- A two-row scan of digit rows by a stepper whose steps keep it in `op` with a carry in
{blank, 1} moves only between the states of `rowStates op`. -/
theorem rows_family (f : Stepper) (op : Op)
    (hf : ∀ a ∈ db, ∀ b ∈ db, ∀ c ∈ carries, (f ⟨op, a, b, c⟩).next.isScan = true →
      (f ⟨op, a, b, c⟩).next = op ∧ (f ⟨op, a, b, c⟩).flag ∈ carries) (n : Nat)
    (xs ys : List Cell) (c : Cell) (hx : Digits xs) (hy : Digits ys) (hc : c ∈ carries) :
    ∀ p ∈ trace f n op xs ys c, p.2.next.isScan = true → (p.2.next, nextC true p.2) ∈ rowStates op := by
  have hv : ∀ p ∈ trace f n op xs ys c, p.1.op = op ∧ p.1.a ∈ db ∧ p.1.b ∈ db ∧ p.1.c ∈ carries := by
    refine trace_inv f (fun v => v.op = op ∧ v.a ∈ db ∧ v.b ∈ db ∧ v.c ∈ carries)
      (fun _ o xs' ys' c' => o = op ∧ Digits xs' ∧ Digits ys' ∧ c' ∈ carries) ?_ ?_
      n op xs ys c ⟨rfl, hx, hy, hc⟩
    · intro m o xs' ys' c' hI
      obtain ⟨ho, hx', hy', hc'⟩ := hI
      exact ⟨ho, hd_mem_db hx', hd_mem_db hy', hc'⟩
    · intro m o xs' ys' c' hI hs
      obtain ⟨ho, hx', hy', hc'⟩ := hI
      subst ho
      obtain ⟨h1, h2⟩ := hf _ (hd_mem_db hx') _ (hd_mem_db hy') c' hc' hs
      exact ⟨h1, digits_tl hx', digits_tl hy', h2⟩
  intro p hp hs
  obtain ⟨ho, ha, hb, hcc⟩ := hv p hp
  have hstep : p.2 = f p.1 := trace_snd f n op xs ys c p hp
  have hv1 : (⟨op, p.1.a, p.1.b, p.1.c⟩ : View) = p.1 := by
    obtain ⟨⟨o, a, b, c'⟩, s⟩ := p
    have ho' : o = op := ho
    rw [ho']
    try rfl
  have hcl := hf p.1.a ha p.1.b hb p.1.c hcc
  rw [hv1, ← hstep] at hcl
  obtain ⟨h1, h2⟩ := hcl hs
  rw [h1, nextC_true]
  rcases mem_carries h2 with e | e
  · rw [e]
    show (op, Cell.blank) ∈ [(op, Cell.blank), (op, Cell.d1)]
    exact List.Mem.head _
  · rw [e]
    show (op, Cell.d1) ∈ [(op, Cell.blank), (op, Cell.d1)]
    exact List.Mem.tail _ (List.Mem.head _)

/-- **Carry-select addition and subtraction = sequential** (Python's first column under its
real state; the same column budget as the sequential scan), for every stepper whose `op` steps
on digit views keep the scan in `op` with a carry in {blank, 1}. -/
theorem select_rows_eq (f : Stepper) (op : Op)
    (hf : ∀ a ∈ db, ∀ b ∈ db, ∀ c ∈ carries, (f ⟨op, a, b, c⟩).next.isScan = true →
      (f ⟨op, a, b, c⟩).next = op ∧ (f ⟨op, a, b, c⟩).flag ∈ carries) (n : Nat)
    (xs ys : List Cell) (hx : Digits xs) (hy : Digits ys) :
    selectScan f true (rowStates op) n op xs ys .blank = trace f n op xs ys .blank := by
  have h := select_scan_eq f true (rowStates op) n op xs ys .blank (by
    intro p hp
    rw [scanP_trace] at hp
    exact rows_family f op hf n xs ys .blank hx hy (by decide) p hp)
  rw [h, scanP_trace]

/-- Python's carry-select addition/subtraction of two rows: columns `0 .. limit - 1`, `limit =
max(width x, width y) + 2` (one column fewer than the sequential scan may use). -/
def selRowsTrace (f : Stepper) (op : Op) (xs ys : List Cell) : List (View × Step) :=
  selectScan f true (rowStates op) (max xs.length ys.length + 2) op xs ys .blank

/-- For a stepper exact on the views `Vop` of a two-row scan whose reference run halts within
Python's parallel limit, the carry-select run with that limit is the sequential run, which is
the reference run. -/
theorem sel_rows_exact (op : Op) (Vop : List View)
    (hgrid : ∀ a ∈ db, ∀ b ∈ db, ∀ c ∈ carries, (⟨op, a, b, c⟩ : View) ∈ Vop)
    (hclosed : ∀ a ∈ db, ∀ b ∈ db, ∀ c ∈ carries,
      (refStep ⟨op, a, b, c⟩).next.isScan = true →
        (refStep ⟨op, a, b, c⟩).next = op ∧ (refStep ⟨op, a, b, c⟩).flag ∈ carries)
    (hhalt : ∀ xs ys, Digits xs → Digits ys →
      lastNext (trace refStep (max xs.length ys.length + 2) op xs ys .blank) op = .HALT)
    (f : Stepper) (hexact : ∀ v ∈ Vop, f v = refStep v)
    (xs ys : List Cell) (hx : Digits xs) (hy : Digits ys) :
    selRowsTrace f op xs ys = rowsTrace f op xs ys ∧ rowsTrace f op xs ys = rowsTrace refStep op xs ys := by
  have hf : ∀ a ∈ db, ∀ b ∈ db, ∀ c ∈ carries, (f ⟨op, a, b, c⟩).next.isScan = true →
      (f ⟨op, a, b, c⟩).next = op ∧ (f ⟨op, a, b, c⟩).flag ∈ carries := by
    intro a ha b hb c hc hs
    have hv := hexact _ (hgrid a ha b hb c hc)
    rw [hv] at hs ⊢
    exact hclosed a ha b hb c hc hs
  have e1 : selRowsTrace f op xs ys = trace f (max xs.length ys.length + 2) op xs ys .blank :=
    select_rows_eq f op hf _ xs ys hx hy
  have e2 : trace f (max xs.length ys.length + 2) op xs ys .blank =
      trace refStep (max xs.length ys.length + 2) op xs ys .blank :=
    trace_congr f refStep _ op xs ys .blank
      (fun p hp => hexact p.1 (rows_sound op Vop hgrid hclosed _ xs ys .blank hx hy (by decide) p hp))
  have hh : (lastNext (trace refStep (max xs.length ys.length + 2) op xs ys .blank) op).isScan
      = false := by
    rw [hhalt xs ys hx hy]
    try rfl
  have e3 := trace_extend1 refStep (max xs.length ys.length) op xs ys .blank hh
  have e4 : rowsTrace f op xs ys = rowsTrace refStep op xs ys :=
    rows_exact op Vop hgrid hclosed f hexact xs ys hx hy
  refine ⟨?_, e4⟩
  rw [e4, e1, e2]
  exact e3.symm

/-- **Carry-select addition (Python's limit), for every stepper exact on `V_ADD`.** -/
theorem sel_add_exact (f : Stepper) (hexact : ∀ v ∈ V_ADD, f v = refStep v)
    (xs ys : List Cell) (hx : Digits xs) (hy : Digits ys) :
    selRowsTrace f .ADD xs ys = addTrace f xs ys ∧ addTrace f xs ys = addTrace refStep xs ys :=
  sel_rows_exact .ADD V_ADD add_grid_in_V add_grid_closed
    (fun xs ys hx hy => (add_correct_aux (max xs.length ys.length + 2) xs ys .blank hx hy (by decide)
      (by have := Nat.le_max_left xs.length ys.length; omega)
      (by have := Nat.le_max_right xs.length ys.length; omega)).2.2)
    f hexact xs ys hx hy

/-- **Carry-select subtraction (Python's limit), for every stepper exact on `V_SUB`.** -/
theorem sel_sub_exact (f : Stepper) (hexact : ∀ v ∈ V_SUB, f v = refStep v)
    (xs ys : List Cell) (hx : Digits xs) (hy : Digits ys) :
    selRowsTrace f .SUB xs ys = subTrace f xs ys ∧ subTrace f xs ys = subTrace refStep xs ys :=
  sel_rows_exact .SUB V_SUB sub_grid_in_V sub_grid_closed
    (fun xs ys hx hy => (sub_correct_aux (max xs.length ys.length + 2) xs ys .blank hx hy (by decide)
      (by have := Nat.le_max_left xs.length ys.length; omega)
      (by have := Nat.le_max_right xs.length ys.length; omega)).2.2.2)
    f hexact xs ys hx hy

/-! ### Partial-product rows: the family `(MUL, c)`, `c` in `MUL_CARRIES[d]` -/

/-- `MUL_CARRIES[d]`: blank and the carries below `d` (the MUL views of V with this `d`). -/
def mulStates (d : Cell) : States := (mulCarries.filter (mulOK d)).map fun c => (.MUL, c)

/-- Python's carry-select partial row `x · d`: columns `0 .. width x + 1`; the multiplier
digit is the fixed second cell of every column. -/
def selMulRowTrace (f : Stepper) (xs : List Cell) (d : Cell) : List (View × Step) :=
  selectScan f true (mulStates d) (xs.length + 2) .MUL xs (List.replicate (xs.length + 2) d) .blank

theorem mul_family (d : Cell) (hd : d.isDigit = true) (n : Nat) (xs : List Cell) (c : Cell)
    (hx : Digits xs) (hc : c ∈ mulCarries) (hok : mulOK d c = true) :
    ∀ p ∈ trace refStep n .MUL xs (List.replicate n d) c, p.2.next.isScan = true →
      (p.2.next, nextC true p.2) ∈ mulStates d := by
  have hdm : d ∈ digitCells := Cell.mem_digitCells_of_isDigit d hd
  have hv : ∀ p ∈ trace refStep n .MUL xs (List.replicate n d) c,
      p.1.op = .MUL ∧ p.1.a ∈ db ∧ p.1.b = d ∧ p.1.c ∈ mulCarries ∧ mulOK d p.1.c = true := by
    refine trace_inv refStep
      (fun v => v.op = .MUL ∧ v.a ∈ db ∧ v.b = d ∧ v.c ∈ mulCarries ∧ mulOK d v.c = true)
      (fun m o xs' ys' c' => o = .MUL ∧ Digits xs' ∧ ys' = List.replicate m d ∧
        c' ∈ mulCarries ∧ mulOK d c' = true) ?_ ?_
      n .MUL xs (List.replicate n d) c ⟨rfl, hx, rfl, hc, hok⟩
    · intro m o xs' ys' c' hI
      obtain ⟨ho, hx', hy', hc', hok'⟩ := hI
      subst hy'
      exact ⟨ho, hd_mem_db hx', rfl, hc', hok'⟩
    · intro m o xs' ys' c' hI hs
      obtain ⟨ho, hx', hy', hc', hok'⟩ := hI
      subst ho hy'
      obtain ⟨h1, h2, h3⟩ := mul_grid_closed _ (hd_mem_db hx') d hdm c' hc' hok' hs
      exact ⟨h1, digits_tl hx', rfl, h2, h3⟩
  intro p hp hs
  obtain ⟨ho, ha, hb, hcc, hokc⟩ := hv p hp
  have hstep : p.2 = refStep p.1 := trace_snd refStep n .MUL xs _ c p hp
  have hv1 : (⟨.MUL, p.1.a, d, p.1.c⟩ : View) = p.1 := by
    obtain ⟨⟨o, a, b, c'⟩, s⟩ := p
    have ho' : o = .MUL := ho
    have hb' : b = d := hb
    rw [ho', hb']
    try rfl
  have hcl := mul_grid_closed p.1.a ha d hdm p.1.c hcc hokc
  rw [hv1, ← hstep] at hcl
  obtain ⟨h1, h2, h3⟩ := hcl hs
  rw [h1, nextC_true]
  exact List.mem_map.mpr ⟨_, List.mem_filter.mpr ⟨h2, h3⟩, rfl⟩

/-- **Carry-select partial rows = sequential**, for every stepper exact on `V_MUL`: Python's
carry-select row `x · d` (its limit, its family) is the sequential row, which is the
reference row. -/
theorem sel_mul_row_exact (f : Stepper) (hexact : ∀ v ∈ V_MUL, f v = refStep v)
    (xs : List Cell) (d : Cell) (hx : Digits xs) (hd : d.isDigit = true) :
    selMulRowTrace f xs d = mulRowTrace f xs d ∧ mulRowTrace f xs d = mulRowTrace refStep xs d := by
  have e4 : mulRowTrace f xs d = mulRowTrace refStep xs d := mul_row_exact f hexact xs d hx hd
  refine ⟨?_, e4⟩
  -- the sequential reference row halts within `width x + 2` columns
  have ep : List.replicate (xs.length + 3) d = List.replicate (xs.length + 2) d ++ [d] :=
    replicate_succ_right d (xs.length + 2)
  have epad : trace refStep (xs.length + 2) .MUL xs (List.replicate (xs.length + 2) d ++ [d]) .blank =
      trace refStep (xs.length + 2) .MUL xs (List.replicate (xs.length + 2) d) .blank :=
    trace_pad refStep (xs.length + 2) .MUL xs _ .blank [d]
      (Nat.le_of_eq (len_replicate d (xs.length + 2)).symm)
  have hhalt := (mul_row_aux d hd (xs.length + 2) xs .blank hx (by decide) (mulOK_blank d)
    (Nat.le_refl _)).2.2
  have hh : (lastNext (trace refStep (xs.length + 2) .MUL xs
      (List.replicate (xs.length + 3) d) .blank) .MUL).isScan = false := by
    rw [ep, epad, hhalt]
    try rfl
  have e3 := trace_extend1 refStep xs.length .MUL xs (List.replicate (xs.length + 3) d) .blank hh
  -- the carry-select row follows the sequential one
  have e2 : trace f (xs.length + 2) .MUL xs (List.replicate (xs.length + 2) d) .blank =
      trace refStep (xs.length + 2) .MUL xs (List.replicate (xs.length + 2) d) .blank :=
    trace_congr f refStep _ .MUL xs _ .blank
      (fun p hp => hexact p.1 (mul_sound d hd _ xs .blank hx (by decide) (mulOK_blank d) p hp))
  have e1 : selMulRowTrace f xs d = trace f (xs.length + 2) .MUL xs (List.replicate (xs.length + 2) d) .blank := by
    have h := select_scan_eq f true (mulStates d) (xs.length + 2) .MUL xs
      (List.replicate (xs.length + 2) d) .blank (by
        intro p hp
        rw [scanP_trace, e2] at hp
        exact mul_family d hd _ xs .blank hx (by decide) (mulOK_blank d) p hp)
    rw [scanP_trace] at h
    exact h
  rw [e4, e1, e2]
  show trace refStep (xs.length + 2) .MUL xs (List.replicate (xs.length + 2) d) .blank =
    trace refStep (xs.length + 3) .MUL xs (List.replicate (xs.length + 3) d) .blank
  rw [e3, ep, epad]

/-! ### Comparison, zero test, increment: families without a carry row -/

/-- `FAMILIES[CMP_EQ]`: the comparison so far, no carry row. -/
def cmpStates : States := [(.CMPEQ, .blank), (.CMPLT, .blank), (.CMPGT, .blank)]

/-- `FAMILIES[ZT]`, `FAMILIES[INC]` (and `FAMILIES[ADD2]`: an `ADD2` scan goes on in `INC`). -/
def ztStates : States := [(.ZT, .blank)]

def incStates : States := [(.INC, .blank)]

theorem cmp_family : ∀ v ∈ V_CMP, (refStep v).next.isScan = true →
    ((refStep v).next, nextC false (refStep v)) ∈ cmpStates := by
  decide +kernel

theorem zt_family : ∀ v ∈ V_ZT, (refStep v).next.isScan = true →
    ((refStep v).next, nextC false (refStep v)) ∈ ztStates := by
  decide +kernel

theorem inc_family : ∀ v ∈ V_INC ++ V_ADD2, (refStep v).next.isScan = true →
    ((refStep v).next, nextC false (refStep v)) ∈ incStates := by
  decide +kernel

/-- Every view of a zero-test scan of a digit row (any column budget) is a `ZT` view of V. -/
theorem zt_scan_closed (n : Nat) (xs : List Cell) (hx : Digits xs) :
    ∀ x ∈ log refStep (scanP n .ZT xs [] .blank false), x.1 ∈ V_ZT := by
  refine scanP_inv refStep false (fun v => v ∈ V_ZT)
    (fun _ o xs' ys' c' => o = .ZT ∧ Digits xs' ∧ ys' = [] ∧ c' = .blank) ?_ ?_
    n .ZT xs [] .blank ⟨rfl, hx, rfl, rfl⟩
  · intro m o xs' ys' c' hI
    obtain ⟨ho, hx', hy', hc'⟩ := hI
    subst ho hy' hc'
    show (⟨.ZT, hd xs', .blank, .blank⟩ : View) ∈ V_ZT
    rw [V_ZT_grid]
    exact List.mem_map.mpr ⟨_, hd_mem_db hx', rfl⟩
  · intro m o xs' ys' c' hI hs
    obtain ⟨ho, hx', hy', hc'⟩ := hI
    subst ho hy' hc'
    exact ⟨zt_next _ (hd_mem_db hx') hs, digits_tl hx', rfl, rfl⟩

/-- **Carry-select comparison = sequential = reference**, for every stepper exact on the 363
comparison views and every column budget. -/
theorem sel_compare_exact (f : Stepper) (hexact : ∀ v ∈ V_CMP, f v = refStep v) (n : Nat)
    (xs ys : List Cell) (hx : Digits xs) (hy : Digits ys) :
    selectScan f false cmpStates n .CMPEQ xs ys .blank = out f (scanP n .CMPEQ xs ys .blank false) ∧
      out f (scanP n .CMPEQ xs ys .blank false) = out refStep (scanP n .CMPEQ xs ys .blank false) :=
  select_scan_exact f false cmpStates (fun v => v ∈ V_CMP) cmp_family hexact n .CMPEQ xs ys .blank
    (cmp_scan_closed n .CMPEQ xs ys (by decide) hx hy)

/-- **Carry-select zero test = sequential = reference** (exact on the 11 `ZT` views). -/
theorem sel_zero_exact (f : Stepper) (hexact : ∀ v ∈ V_ZT, f v = refStep v) (n : Nat)
    (xs : List Cell) (hx : Digits xs) :
    selectScan f false ztStates n .ZT xs [] .blank = out f (scanP n .ZT xs [] .blank false) ∧
      out f (scanP n .ZT xs [] .blank false) = out refStep (scanP n .ZT xs [] .blank false) :=
  select_scan_exact f false ztStates (fun v => v ∈ V_ZT) zt_family hexact n .ZT xs [] .blank
    (zt_scan_closed n xs hx)

/-- **Carry-select increment = sequential = reference** (exact on the 11 `INC` views). -/
theorem sel_inc_exact (f : Stepper) (hexact : ∀ v ∈ V_INC, f v = refStep v) (n : Nat)
    (xs : List Cell) (hx : Digits xs) :
    selectScan f false incStates n .INC xs [] .blank = out f (scanP n .INC xs [] .blank false) ∧
      out f (scanP n .INC xs [] .blank false) = out refStep (scanP n .INC xs [] .blank false) :=
  select_scan_exact f false incStates (fun v => v ∈ V_INC)
    (fun v hv => inc_family v (List.mem_append.mpr (Or.inl hv))) hexact n .INC xs [] .blank
    (inc_scan_closed n xs hx)

/-! ### Completion within Python's limit, for the scans without a carry row -/

/-- The form the procedures use: a scan program that halted within `n + 2` columns is the same
with `n + 3`. -/
theorem scanP_extend1 (f : Stepper) (cr : Bool) (n : Nat) (op : Op) (xs ys : List Cell) (c : Cell)
    (h : (lastNext (out f (scanP (n + 2) op xs ys c cr)) op).isScan = false) :
    out f (scanP (n + 3) op xs ys c cr) = out f (scanP (n + 2) op xs ys c cr) :=
  scanP_extend f cr (n + 1) op xs ys c h 1

/-- A scan halts once both rows are past their ends, if its steps keep it in states `I` from
which the blank column halts: so within `max(width) + 1` columns. -/
theorem scanP_halts (g : Stepper) (cr : Bool) (I : Op → Cell → Prop)
    (hend : ∀ op c, I op c → (g ⟨op, .blank, .blank, c⟩).next.isScan = false)
    (hstep : ∀ op a b c, I op c → a ∈ db → b ∈ db → (g ⟨op, a, b, c⟩).next.isScan = true →
      I (g ⟨op, a, b, c⟩).next (nextC cr (g ⟨op, a, b, c⟩))) (n : Nat) :
    ∀ (op : Op) (xs ys : List Cell) (c : Cell), I op c → Digits xs → Digits ys →
      xs.length + 1 ≤ n → ys.length + 1 ≤ n →
      (lastNext (out g (scanP n op xs ys c cr)) op).isScan = false := by
  induction n with
  | zero => intro op xs ys c _ _ _ h _; omega
  | succ n ih =>
    intro op xs ys c hI hx hy hnx hny
    cases hs : (g ⟨op, hd xs, hd ys, c⟩).next.isScan with
    | false =>
      rw [(scanP_halt g n op xs ys c cr hs).1, lastNext_cons]
      exact hs
    | true =>
      have hne : ¬(hd xs = .blank ∧ hd ys = .blank) := by
        intro hb
        have hs' := hs
        rw [hb.1, hb.2, hend op c hI] at hs'
        exact absurd hs' (by decide)
      have h1 := one_le_len_of_ne xs ys hne
      rw [(scanP_cont g n op xs ys c cr hs).1, lastNext_cons]
      apply ih _ (tl xs) (tl ys) _ (hstep op _ _ c hI (hd_mem_db hx) (hd_mem_db hy) hs)
        (digits_tl hx) (digits_tl hy)
      · rw [len_tl]; omega
      · rw [len_tl]; omega

theorem cmp_step_ops : ∀ op ∈ cmpOps, ∀ a ∈ db, ∀ b ∈ db,
    (refStep ⟨op, a, b, .blank⟩).next.isScan = true → (refStep ⟨op, a, b, .blank⟩).next ∈ cmpOps := by
  decide +kernel

theorem cmp_end : ∀ op ∈ cmpOps, (refStep ⟨op, .blank, .blank, .blank⟩).next.isScan = false := by
  decide +kernel

theorem zt_step : ∀ a ∈ db, ∀ b ∈ db,
    (refStep ⟨.ZT, a, b, .blank⟩).next.isScan = true → (refStep ⟨.ZT, a, b, .blank⟩).next = .ZT := by
  decide +kernel

theorem zt_end : (refStep ⟨.ZT, .blank, .blank, .blank⟩).next.isScan = false := by decide +kernel

theorem inc_step : ∀ a ∈ db, ∀ b ∈ db,
    (refStep ⟨.INC, a, b, .blank⟩).next.isScan = true → (refStep ⟨.INC, a, b, .blank⟩).next = .INC := by
  decide +kernel

theorem inc_end : (refStep ⟨.INC, .blank, .blank, .blank⟩).next.isScan = false := by decide +kernel

theorem cmp_halts (n : Nat) (xs ys : List Cell) (hx : Digits xs) (hy : Digits ys)
    (hn1 : xs.length + 1 ≤ n) (hn2 : ys.length + 1 ≤ n) :
    (lastNext (out refStep (scanP n .CMPEQ xs ys .blank false)) .CMPEQ).isScan = false :=
  scanP_halts refStep false (fun op c => op ∈ cmpOps ∧ c = .blank)
    (fun op c hI => by
      obtain ⟨hop, hc⟩ := hI
      subst hc
      exact cmp_end op hop)
    (fun op a b c hI ha hb hs => by
      obtain ⟨hop, hc⟩ := hI
      subst hc
      exact ⟨cmp_step_ops op hop a ha b hb hs, rfl⟩)
    n .CMPEQ xs ys .blank ⟨by decide, rfl⟩ hx hy hn1 hn2

theorem one_op_halts (o : Op) (hend : (refStep ⟨o, .blank, .blank, .blank⟩).next.isScan = false)
    (hstep : ∀ a ∈ db, ∀ b ∈ db,
      (refStep ⟨o, a, b, .blank⟩).next.isScan = true → (refStep ⟨o, a, b, .blank⟩).next = o)
    (n : Nat) (xs : List Cell) (hx : Digits xs) (hn : xs.length + 1 ≤ n) :
    (lastNext (out refStep (scanP n o xs [] .blank false)) o).isScan = false :=
  scanP_halts refStep false (fun op c => op = o ∧ c = .blank)
    (fun op c hI => by
      obtain ⟨hop, hc⟩ := hI
      subst hop hc
      exact hend)
    (fun op a b c hI ha hb hs => by
      obtain ⟨hop, hc⟩ := hI
      subst hop hc
      exact ⟨hstep a ha b hb hs, rfl⟩)
    n o xs [] .blank ⟨rfl, rfl⟩ hx digits_nil hn (by show 0 + 1 ≤ n; omega)

/-- **Carry-select comparison at Python's limit** (`max(width) + 2` columns) = the sequential
scan of `compare_rows` (`max(width) + 3`) = the reference's, for every stepper exact on `V_CMP`. -/
theorem sel_compare_limit (f : Stepper) (hexact : ∀ v ∈ V_CMP, f v = refStep v)
    (xs ys : List Cell) (hx : Digits xs) (hy : Digits ys) :
    selectScan f false cmpStates (max xs.length ys.length + 2) .CMPEQ xs ys .blank =
      out f (scanP (max xs.length ys.length + 3) .CMPEQ xs ys .blank false) ∧
    out f (scanP (max xs.length ys.length + 3) .CMPEQ xs ys .blank false) =
      out refStep (scanP (max xs.length ys.length + 3) .CMPEQ xs ys .blank false) := by
  obtain ⟨e1, e2⟩ := sel_compare_exact f hexact (max xs.length ys.length + 2) xs ys hx hy
  have e4 := (sel_compare_exact f hexact (max xs.length ys.length + 3) xs ys hx hy).2
  have hh := cmp_halts (max xs.length ys.length + 2) xs ys hx hy
    (by have := Nat.le_max_left xs.length ys.length; omega)
    (by have := Nat.le_max_right xs.length ys.length; omega)
  have e5 := scanP_extend1 refStep false (max xs.length ys.length) .CMPEQ xs ys .blank hh
  refine ⟨?_, e4⟩
  rw [e1, e2, e4, e5]

/-- **Carry-select zero test at Python's limit** (`width + 2`) = `zero_test`'s sequential scan =
the reference's, for every stepper exact on `V_ZT`. -/
theorem sel_zero_limit (f : Stepper) (hexact : ∀ v ∈ V_ZT, f v = refStep v)
    (xs : List Cell) (hx : Digits xs) :
    selectScan f false ztStates (xs.length + 2) .ZT xs [] .blank =
      out f (scanP (xs.length + 3) .ZT xs [] .blank false) ∧
    out f (scanP (xs.length + 3) .ZT xs [] .blank false) =
      out refStep (scanP (xs.length + 3) .ZT xs [] .blank false) := by
  obtain ⟨e1, e2⟩ := sel_zero_exact f hexact (xs.length + 2) xs hx
  have e4 := (sel_zero_exact f hexact (xs.length + 3) xs hx).2
  have hh := one_op_halts .ZT zt_end zt_step (xs.length + 2) xs hx (by omega)
  have e5 := scanP_extend1 refStep false xs.length .ZT xs [] .blank hh
  refine ⟨?_, e4⟩
  rw [e1, e2, e4, e5]

/-- **Carry-select increment at Python's limit** (`width + 2`) = `increment`'s sequential scan =
the reference's, for every stepper exact on `V_INC`. -/
theorem sel_inc_limit (f : Stepper) (hexact : ∀ v ∈ V_INC, f v = refStep v)
    (xs : List Cell) (hx : Digits xs) :
    selectScan f false incStates (xs.length + 2) .INC xs [] .blank =
      out f (scanP (xs.length + 3) .INC xs [] .blank false) ∧
    out f (scanP (xs.length + 3) .INC xs [] .blank false) =
      out refStep (scanP (xs.length + 3) .INC xs [] .blank false) := by
  obtain ⟨e1, e2⟩ := sel_inc_exact f hexact (xs.length + 2) xs hx
  have e4 := (sel_inc_exact f hexact (xs.length + 3) xs hx).2
  have hh := one_op_halts .INC inc_end inc_step (xs.length + 2) xs hx (by omega)
  have e5 := scanP_extend1 refStep false xs.length .INC xs [] .blank hh
  refine ⟨?_, e4⟩
  rw [e1, e2, e4, e5]

/-! ### The sum tree of a product (`_sum_tree`) -/

/-- One level of the tree: rows `(r₁, s₁), (r₂, s₂)` (row, shift) are added as `r₁ + r₂`
shifted by `s₂ - s₁`, at shift `s₁`; an odd last row goes up unchanged. -/
def treeLevel (add : List Cell → List Cell → List Cell) :
    List (List Cell × Nat) → List (List Cell × Nat)
  | [] => []
  | [p] => [p]
  | p :: q :: rest => (add p.1 (shiftRow (q.2 - p.2) q.1), p.2) :: treeLevel add rest

/-- Levels until one row is left (`k` levels at most). -/
def sumTree (add : List Cell → List Cell → List Cell) : Nat → List (List Cell × Nat) → List Cell
  | _, [] => []
  | _, [p] => p.1
  | 0, p :: _ :: _ => p.1
  | k + 1, p :: q :: rest => sumTree add k (treeLevel add (p :: q :: rest))

/-- The number the rows of a level denote together. -/
def treeVal : List (List Cell × Nat) → Nat
  | [] => 0
  | p :: t => rowVal p.1 * 10 ^ p.2 + treeVal t

/-- Shifts non-decreasing, from at least `s`. -/
def MonoFrom : Nat → List (List Cell × Nat) → Prop
  | _, [] => True
  | s, p :: t => s ≤ p.2 ∧ MonoFrom p.2 t

def AllDig : List (List Cell × Nat) → Prop
  | [] => True
  | p :: t => Digits p.1 ∧ AllDig t

theorem monoFrom_weaken {s s' : Nat} (h : s' ≤ s) : ∀ l, MonoFrom s l → MonoFrom s' l
  | [], _ => trivial
  | _ :: _, hm => ⟨Nat.le_trans h hm.1, hm.2⟩

theorem level_ok (add : List Cell → List Cell → List Cell)
    (hadd : ∀ a b, Digits a → Digits b → rowVal (add a b) = rowVal a + rowVal b ∧ Digits (add a b)) :
    ∀ (l : List (List Cell × Nat)) (s : Nat), MonoFrom s l → AllDig l →
      treeVal (treeLevel add l) = treeVal l ∧ MonoFrom s (treeLevel add l) ∧
        AllDig (treeLevel add l) ∧ (treeLevel add l).length ≤ l.length
  | [], _, hm, hd => ⟨rfl, hm, hd, Nat.le_refl _⟩
  | [_], _, hm, hd => ⟨rfl, hm, hd, Nat.le_refl _⟩
  | p :: q :: rest, s, hm, hdg => by
    obtain ⟨hsp, hpq, hrest⟩ := hm
    obtain ⟨hdp, hdq, hdr⟩ := hdg
    obtain ⟨iv, im, idg, il⟩ := level_ok add hadd rest p.2 (monoFrom_weaken hpq rest hrest) hdr
    obtain ⟨hv, hdig⟩ := hadd p.1 (shiftRow (q.2 - p.2) q.1) hdp (digits_shift _ _ hdq)
    have e : treeLevel add (p :: q :: rest) =
        (add p.1 (shiftRow (q.2 - p.2) q.1), p.2) :: treeLevel add rest := rfl
    rw [e]
    refine ⟨?_, ⟨hsp, im⟩, ⟨hdig, idg⟩, ?_⟩
    · show rowVal (add p.1 (shiftRow (q.2 - p.2) q.1)) * 10 ^ p.2 + treeVal (treeLevel add rest) =
        rowVal p.1 * 10 ^ p.2 + (rowVal q.1 * 10 ^ q.2 + treeVal rest)
      have hpow : 10 ^ (q.2 - p.2) * 10 ^ p.2 = 10 ^ q.2 := by
        rw [← Nat.pow_add, Nat.sub_add_cancel hpq]
      rw [iv, hv, rowVal_shift, Nat.add_mul, Nat.mul_comm (10 ^ (q.2 - p.2)) (rowVal q.1),
        Nat.mul_assoc (rowVal q.1), hpow, Nat.add_assoc]
    · show (treeLevel add rest).length + 1 ≤ rest.length + 1 + 1
      omega

theorem sumTree_ok (add : List Cell → List Cell → List Cell)
    (hadd : ∀ a b, Digits a → Digits b → rowVal (add a b) = rowVal a + rowVal b ∧ Digits (add a b)) :
    ∀ (k : Nat) (p : List Cell × Nat) (t : List (List Cell × Nat)),
      (p :: t).length ≤ k + 1 → MonoFrom p.2 t → AllDig (p :: t) →
        rowVal (sumTree add k (p :: t)) * 10 ^ p.2 = treeVal (p :: t) ∧ Digits (sumTree add k (p :: t)) := by
  intro k
  induction k with
  | zero =>
    intro p t hl _ hdg
    cases t with
    | nil => exact ⟨(Nat.add_zero _).symm, hdg.1⟩
    | cons q rest =>
      have : (p :: q :: rest).length = rest.length + 1 + 1 := rfl
      omega
  | succ k ih =>
    intro p t hl hm hdg
    cases t with
    | nil => exact ⟨(Nat.add_zero _).symm, hdg.1⟩
    | cons q rest =>
      obtain ⟨iv, im, idg, _⟩ := level_ok add hadd (p :: q :: rest) p.2 ⟨Nat.le_refl _, hm⟩ hdg
      obtain ⟨_, _, _, il⟩ := level_ok add hadd rest p.2 (monoFrom_weaken hm.1 rest hm.2) hdg.2.2
      have e : treeLevel add (p :: q :: rest) =
          (add p.1 (shiftRow (q.2 - p.2) q.1), p.2) :: treeLevel add rest := rfl
      have es : sumTree add (k + 1) (p :: q :: rest) = sumTree add k (treeLevel add (p :: q :: rest)) := rfl
      rw [e] at iv im idg
      have hl' : ((add p.1 (shiftRow (q.2 - p.2) q.1), p.2) :: treeLevel add rest).length ≤ k + 1 := by
        have h1 : ((add p.1 (shiftRow (q.2 - p.2) q.1), p.2) :: treeLevel add rest).length =
            (treeLevel add rest).length + 1 := rfl
        have h2 : (p :: q :: rest).length = rest.length + 1 + 1 := rfl
        omega
      obtain ⟨rv, rd⟩ := ih _ _ hl' im.2 idg
      rw [es, e]
      exact ⟨rv.trans iv, rd⟩

/-- The partial rows of a product with their shifts `j, j+1, …` (`[(row, j) for j, row in
enumerate(partial)]`). -/
def partials (row : Cell → List Cell) : Nat → List Cell → List (List Cell × Nat)
  | _, [] => []
  | j, d :: ds => (row d, j) :: partials row (j + 1) ds

theorem partials_length (row : Cell → List Cell) : ∀ (j : Nat) (ds : List Cell),
    (partials row j ds).length = ds.length
  | _, [] => rfl
  | j, _ :: ds => by
    show (partials row (j + 1) ds).length + 1 = ds.length + 1
    rw [partials_length row (j + 1) ds]

theorem partials_ok (row : Cell → List Cell) (X : Nat)
    (hrow : ∀ d, d.isDigit = true → rowVal (row d) = X * d.val ∧ Digits (row d)) :
    ∀ (ds : List Cell) (j : Nat), Digits ds →
      treeVal (partials row j ds) = 10 ^ j * (X * rowVal ds) ∧ AllDig (partials row j ds) ∧
        MonoFrom j (partials row j ds)
  | [], j, _ => ⟨by show 0 = 10 ^ j * (X * 0); rw [Nat.mul_zero, Nat.mul_zero], trivial, trivial⟩
  | d :: ds, j, hds => by
    obtain ⟨hd, hds'⟩ := digits_cons hds
    obtain ⟨iv, idg, im⟩ := partials_ok row X hrow ds (j + 1) hds'
    obtain ⟨hv, hdig⟩ := hrow d hd
    refine ⟨?_, ⟨hdig, idg⟩, ⟨Nat.le_refl _, monoFrom_weaken (Nat.le_succ j) _ im⟩⟩
    show rowVal (row d) * 10 ^ j + treeVal (partials row (j + 1) ds) = 10 ^ j * (X * rowVal (d :: ds))
    have t1 : X * d.val * 10 ^ j = 10 ^ j * (X * d.val) := Nat.mul_comm _ _
    have t2 : 10 ^ (j + 1) * (X * rowVal ds) = 10 ^ j * (X * (10 * rowVal ds)) := by
      rw [Nat.pow_succ, Nat.mul_assoc, Nat.mul_left_comm 10 X (rowVal ds)]
    rw [iv, hv, rowVal_cons, t1, t2, ← Nat.mul_add, ← Nat.mul_add]

/-- Python's parallel product row: carry-select partial rows, added in a tree of carry-select
additions (`product_rows` with `PARALLEL`, `_sum_tree`). -/
def parAdd (f : Stepper) (a b : List Cell) : List Cell := rowOf (selRowsTrace f .ADD a b)

def parMul (f : Stepper) (xs ys : List Cell) : List Cell :=
  sumTree (parAdd f) ys.length (partials (fun d => rowOf (selMulRowTrace f xs d)) 0 ys)

/-- **The parallel product, for every stepper exact on `V_MUL` and `V_ADD`:** every
carry-select partial row is the sequential partial row, and the tree of carry-select additions
writes a digit row denoting the same number as the sequential product, `x · y`.  (The sum rows
themselves differ: the tree adds other pairs of rows than the sequential running total.) -/
theorem par_mul_exact (f : Stepper) (hmul : ∀ v ∈ V_MUL, f v = refStep v)
    (hadd : ∀ v ∈ V_ADD, f v = refStep v) (xs ys : List Cell) (hx : Digits xs) (hy : Digits ys)
    (hne : ys ≠ []) :
    (∀ d, d.isDigit = true → selMulRowTrace f xs d = mulRowTrace f xs d) ∧
    rowVal (parMul f xs ys) = rowVal xs * rowVal ys ∧ Digits (parMul f xs ys) ∧
    rowVal (parMul f xs ys) = rowVal (mulRun f xs ys).1 := by
  have hA : ∀ a b, Digits a → Digits b → rowVal (parAdd f a b) = rowVal a + rowVal b ∧
      Digits (parAdd f a b) := by
    intro a b ha hb
    obtain ⟨e1, e2⟩ := sel_add_exact f hadd a b ha hb
    have e : parAdd f a b = rowOf (addTrace refStep a b) := by
      show rowOf (selRowsTrace f .ADD a b) = _
      rw [e1, e2]
    obtain ⟨v, dg, _⟩ := add_correct a b ha hb
    rw [e]
    exact ⟨v, dg⟩
  have hR : ∀ d, d.isDigit = true → rowVal (rowOf (selMulRowTrace f xs d)) = rowVal xs * d.val ∧
      Digits (rowOf (selMulRowTrace f xs d)) := by
    intro d hd
    obtain ⟨e1, e2⟩ := sel_mul_row_exact f hmul xs d hx hd
    obtain ⟨v, dg, _⟩ := mul_row_correct xs d hx hd
    rw [e1, e2]
    exact ⟨v, dg⟩
  have hval : rowVal (parMul f xs ys) = rowVal xs * rowVal ys ∧ Digits (parMul f xs ys) := by
    cases ys with
    | nil => exact absurd rfl hne
    | cons d ds =>
      obtain ⟨pv, pdg, pm⟩ := partials_ok (fun d => rowOf (selMulRowTrace f xs d)) (rowVal xs) hR
        (d :: ds) 0 hy
      have ep : partials (fun d => rowOf (selMulRowTrace f xs d)) 0 (d :: ds) =
          (rowOf (selMulRowTrace f xs d), 0) ::
            partials (fun d => rowOf (selMulRowTrace f xs d)) 1 ds := rfl
      rw [ep] at pv pdg pm
      have hl : ((rowOf (selMulRowTrace f xs d), 0) ::
          partials (fun d => rowOf (selMulRowTrace f xs d)) 1 ds).length ≤ (d :: ds).length + 1 := by
        have h1 : ((rowOf (selMulRowTrace f xs d), 0) ::
            partials (fun d => rowOf (selMulRowTrace f xs d)) 1 ds).length =
            (partials (fun d => rowOf (selMulRowTrace f xs d)) 1 ds).length + 1 := rfl
        have h2 : (d :: ds).length = ds.length + 1 := rfl
        rw [h1, h2, partials_length]
        omega
      obtain ⟨tv, tdg⟩ := sumTree_ok (parAdd f) hA (d :: ds).length _ _ hl pm.2 pdg
      have em : parMul f xs (d :: ds) = sumTree (parAdd f) (d :: ds).length
          ((rowOf (selMulRowTrace f xs d), 0) ::
            partials (fun d => rowOf (selMulRowTrace f xs d)) 1 ds) := rfl
      rw [em]
      refine ⟨?_, tdg⟩
      simp only [Nat.pow_zero, Nat.mul_one] at tv
      rw [tv, pv, Nat.pow_zero, Nat.one_mul]
  refine ⟨fun d hd => (sel_mul_row_exact f hmul xs d hx hd).1, hval.1, hval.2, ?_⟩
  rw [hval.1, mul_exact_correct f hmul hadd xs ys hx hy hne]

/-! ### Speculation (`speculate`): a batch of probes, then the sequential code -/

/-- The step a batch gave a view (`answers.get`; the first probe of the view wins, as
`answers.setdefault`). -/
def lookupStep : List (View × Step) → View → Option Step
  | [], _ => none
  | p :: t, v => if p.1 = v then some p.2 else lookupStep t v

/-- The batch of a probe list: each view answered by the stepper (`drive`: each distinct view
goes through the stepper once and its step is handed back wherever it was presented). -/
def batch (f : Stepper) (P : List View) : List (View × Step) := P.map fun v => (v, f v)

def optCase {β : Type} : Option Step → β → (Step → β) → β
  | none, b, _ => b
  | some s, _, g => g s

theorem optCase_none {β : Type} (b : β) (g : Step → β) : optCase none b g = b := rfl

theorem optCase_some {β : Type} (s : Step) (b : β) (g : Step → β) : optCase (some s) b g = g s := rfl

variable {α β : Type}

/-- The result of a speculative block: the sequential program `p`, each view it asks answered
from the batch `tbl`; at the first view the batch lacks, the rest runs sequentially. -/
def specOut (tbl : List (View × Step)) (f : Stepper) (p : Prog α) : α :=
  Prog.rec (motive := fun _ => α) (fun a => a)
    (fun v k ih => optCase (lookupStep tbl v) (out f (ask v k)) ih) p

/-- The steps a speculative block writes (`follow` writes the sheet), in order. -/
def specLog (tbl : List (View × Step)) (f : Stepper) (p : Prog α) : List (View × Step) :=
  Prog.rec (motive := fun _ => List (View × Step)) (fun _ => [])
    (fun v k ih => optCase (lookupStep tbl v) (log f (ask v k)) (fun s => (v, s) :: ih s)) p

/-- Whether the block left its batch (Python's `counters.fallbacks`). -/
def specFell (tbl : List (View × Step)) (f : Stepper) (p : Prog α) : Bool :=
  Prog.rec (motive := fun _ => Bool) (fun _ => false)
    (fun v _ ih => optCase (lookupStep tbl v) true ih) p

theorem specOut_ask (tbl : List (View × Step)) (f : Stepper) (v : View) (k : Step → Prog α) :
    specOut tbl f (ask v k) = optCase (lookupStep tbl v) (out f (ask v k)) (fun s => specOut tbl f (k s)) :=
  rfl

theorem specLog_ask (tbl : List (View × Step)) (f : Stepper) (v : View) (k : Step → Prog α) :
    specLog tbl f (ask v k) =
      optCase (lookupStep tbl v) (log f (ask v k)) (fun s => (v, s) :: specLog tbl f (k s)) :=
  rfl

theorem specFell_ask (tbl : List (View × Step)) (f : Stepper) (v : View) (k : Step → Prog α) :
    specFell tbl f (ask v k) = optCase (lookupStep tbl v) true (fun s => specFell tbl f (k s)) :=
  rfl

theorem lookup_sound (f : Stepper) : ∀ (tbl : List (View × Step)) (v : View) (s : Step),
    (∀ e ∈ tbl, e.2 = f e.1) → lookupStep tbl v = some s → s = f v
  | [], v, s, _, h => by
    have h' : (none : Option Step) = some s := h
    cases h'
  | p :: t, v, s, hs, h => by
    by_cases e : p.1 = v
    · have h' : lookupStep (p :: t) v = some p.2 := if_pos e
      rw [h'] at h
      have e2 : p.2 = s := Option.some.inj h
      rw [← e2, hs p (List.Mem.head _), e]
    · have h' : lookupStep (p :: t) v = lookupStep t v := if_neg e
      rw [h'] at h
      exact lookup_sound f t v s (fun e he => hs e (List.Mem.tail _ he)) h

theorem batch_sound (f : Stepper) (P : List View) : ∀ e ∈ batch f P, e.2 = f e.1 := by
  intro e he
  obtain ⟨v, _, rfl⟩ := List.mem_map.mp he
  rfl

theorem lookup_batch (f : Stepper) : ∀ (P : List View) (v : View), v ∈ P →
    lookupStep (batch f P) v = some (f v)
  | [], v, h => by cases h
  | w :: P, v, h => by
    have e0 : batch f (w :: P) = (w, f w) :: batch f P := rfl
    rw [e0]
    by_cases e : w = v
    · subst e
      exact if_pos rfl
    · have h' : v ∈ P := by
        rcases List.mem_cons.mp h with h1 | h1
        · exact absurd h1.symm e
        · exact h1
      exact (if_neg e).trans (lookup_batch f P v h')

/-- **Speculation = sequential.** For every stepper `f`, every sequential program `p` and every
table of answers that `f` gave (in particular every batch of probes, `batch_sound`): the
speculative block returns what the sequential run returns and writes exactly the steps the
sequential run writes — whether or not it leaves its batch. -/
theorem speculate_eq (f : Stepper) (tbl : List (View × Step)) (htbl : ∀ e ∈ tbl, e.2 = f e.1)
    (p : Prog α) : specOut tbl f p = out f p ∧ specLog tbl f p = log f p := by
  induction p with
  | done a => exact ⟨rfl, rfl⟩
  | ask v k ih =>
    rw [specOut_ask, specLog_ask]
    cases h : lookupStep tbl v with
    | none => rw [optCase_none, optCase_none]; exact ⟨rfl, rfl⟩
    | some s =>
      have hs : s = f v := lookup_sound f tbl v s htbl h
      rw [optCase_some, optCase_some, out_ask, log_ask, ← hs]
      obtain ⟨h1, h2⟩ := ih s
      exact ⟨h1, congrArg (List.cons (v, s)) h2⟩

/-- A batch that holds every view of the sequential run is never left (no fallback). -/
theorem speculate_no_fallback (f : Stepper) (P : List View) (p : Prog α)
    (hcov : ∀ x ∈ log f p, x.1 ∈ P) : specFell (batch f P) f p = false := by
  induction p with
  | done a => rfl
  | ask v k ih =>
    have hv : v ∈ P := hcov (v, f v) (by rw [log_ask]; exact List.Mem.head _)
    rw [specFell_ask, lookup_batch f P v hv, optCase_some]
    exact ih (f v) (fun x hx => hcov x (by rw [log_ask]; exact List.Mem.tail _ hx))

/-- The procedure goes on after a speculative block exactly as after the sequential block. -/
theorem speculate_bind (f : Stepper) (P : List View) (p : Prog α) (q : α → Prog β) :
    specLog (batch f P) f p ++ log f (q (specOut (batch f P) f p)) = log f (p.bind q) ∧
    out f (q (specOut (batch f P) f p)) = out f (p.bind q) := by
  obtain ⟨h1, h2⟩ := speculate_eq f (batch f P) (batch_sound f P) p
  rw [h1, h2, log_bind, out_bind]
  exact ⟨rfl, rfl⟩

/-! ### Procedures with carry-select scans and speculative blocks -/

/-- A procedure of the parallel runtime: asks; carry-select scans (`sel S n op xs ys c cr k`:
Python's `scan` in the parallel mode, with its family `S`, then the rest of the procedure on
the scan's run); and speculative blocks (`spec probes block k`: `speculate(probes, follow)`,
`follow` the sequential code of the block). -/
inductive PProg (α : Type) : Type 1 where
  | pdone : α → PProg α
  | pask : View → (Step → PProg α) → PProg α
  | spec {γ : Type} : List View → Prog γ → (γ → PProg α) → PProg α
  | sel : States → Nat → Op → List Cell → List Cell → Cell → Bool →
      (List (View × Step) → PProg α) → PProg α

namespace PProg

/-- The sequential procedure (`parallel=False`): every scan sequential, every block run as its
sequential code. -/
def seq (pp : PProg α) : Prog α :=
  PProg.rec (motive := fun _ => Prog α) (fun a => Prog.done a) (fun v _ ih => Prog.ask v ih)
    (fun _ p _ ih => p.bind ih)
    (fun _ n op xs ys c cr _ ih => (scanP n op xs ys c cr).bind ih) pp

/-- The result of the parallel run. -/
def pout (f : Stepper) (pp : PProg α) : α :=
  PProg.rec (motive := fun _ => α) (fun a => a) (fun v _ ih => ih (f v))
    (fun P p _ ih => ih (specOut (batch f P) f p))
    (fun S n op xs ys c cr _ ih => ih (selectScan f cr S n op xs ys c)) pp

/-- The steps the parallel run writes, in order. -/
def plog (f : Stepper) (pp : PProg α) : List (View × Step) :=
  PProg.rec (motive := fun _ => List (View × Step)) (fun _ => [])
    (fun v _ ih => (v, f v) :: ih (f v))
    (fun P p _ ih => specLog (batch f P) f p ++ ih (specOut (batch f P) f p))
    (fun S n op xs ys c cr _ ih =>
      selectScan f cr S n op xs ys c ++ ih (selectScan f cr S n op xs ys c)) pp

/-- Every carry-select scan the sequential run reaches moves only between states of its family
(where Python's parallel run would raise otherwise). -/
def famOK (f : Stepper) (pp : PProg α) : Prop :=
  PProg.rec (motive := fun _ => Prop) (fun _ => True) (fun v _ ih => ih (f v))
    (fun _ p _ ih => ih (out f p))
    (fun S n op xs ys c cr _ ih =>
      (∀ q ∈ out f (scanP n op xs ys c cr), q.2.next.isScan = true →
        (q.2.next, nextC cr q.2) ∈ S) ∧ ih (out f (scanP n op xs ys c cr))) pp

end PProg

/-- **Parallel = sequential, for every procedure built from asks, carry-select scans and
speculative blocks, and every stepper** whose sequential run keeps each carry-select scan in
its family (`famOK`; for a stepper exact on V the `sel_*_exact` theorems give it): the parallel
run returns the sequential result and writes the sequential steps, in the same order. -/
theorem parallel_eq (f : Stepper) (pp : PProg α) (hfam : pp.famOK f) :
    pp.pout f = out f pp.seq ∧ pp.plog f = log f pp.seq := by
  induction pp with
  | pdone a => exact ⟨rfl, rfl⟩
  | pask v k ih =>
    obtain ⟨h1, h2⟩ := ih (f v) hfam
    refine ⟨h1, ?_⟩
    show (v, f v) :: (k (f v)).plog f = (v, f v) :: log f (k (f v)).seq
    rw [h2]
  | @spec γ P p k ih =>
    obtain ⟨s1, s2⟩ := speculate_eq f (batch f P) (batch_sound f P) p
    obtain ⟨h1, h2⟩ := ih (out f p) hfam
    refine ⟨?_, ?_⟩
    · show (k (specOut (batch f P) f p)).pout f = out f (p.bind fun b => (k b).seq)
      rw [s1, h1, out_bind]
      try rfl
    · show specLog (batch f P) f p ++ (k (specOut (batch f P) f p)).plog f =
        log f (p.bind fun b => (k b).seq)
      rw [s1, s2, h2, log_bind]
      try rfl
  | sel S n op xs ys c cr k ih =>
    obtain ⟨hS, hk⟩ := hfam
    have e := select_scan_eq f cr S n op xs ys c hS
    obtain ⟨h1, h2⟩ := ih (out f (scanP n op xs ys c cr)) hk
    refine ⟨?_, ?_⟩
    · show (k (selectScan f cr S n op xs ys c)).pout f =
        out f ((scanP n op xs ys c cr).bind fun t => (k t).seq)
      rw [e, h1, out_bind]
      try rfl
    · show selectScan f cr S n op xs ys c ++ (k (selectScan f cr S n op xs ys c)).plog f =
        log f ((scanP n op xs ys c cr).bind fun t => (k t).seq)
      rw [e, h2, log_bind, scanP_log]
      try rfl

/-- The family condition of a reference scan whose views lie in a view set from which every
continuing reference step lands in the family. -/
theorem fam_of_closed (cr : Bool) (S : States) (VP : View → Prop)
    (hfam : ∀ v, VP v → (refStep v).next.isScan = true →
      ((refStep v).next, nextC cr (refStep v)) ∈ S)
    (n : Nat) (op : Op) (xs ys : List Cell) (c : Cell)
    (hclosed : ∀ x ∈ log refStep (scanP n op xs ys c cr), VP x.1) :
    ∀ q ∈ out refStep (scanP n op xs ys c cr), q.2.next.isScan = true →
      (q.2.next, nextC cr q.2) ∈ S := by
  intro q hq hs
  rw [← scanP_log] at hq
  have hq2 : q.2 = refStep q.1 := log_snd refStep _ q hq
  rw [hq2] at hs ⊢
  exact hfam q.1 (hclosed q hq) hs

/-- The family conditions carry over from the reference to a stepper that agrees with it on the
reference's sequential run. -/
theorem famOK_of_agree (f : Stepper) (pp : PProg α)
    (hagree : ∀ x ∈ log refStep pp.seq, f x.1 = refStep x.1) (h : pp.famOK refStep) :
    pp.famOK f := by
  induction pp with
  | pdone a => trivial
  | pask v k ih =>
    have hl : log refStep (PProg.pask v k).seq = (v, refStep v) :: log refStep (k (refStep v)).seq :=
      rfl
    rw [hl] at hagree
    have hv : f v = refStep v := hagree (v, refStep v) (List.Mem.head _)
    show (k (f v)).famOK f
    rw [hv]
    exact ih (refStep v) (fun x hx => hagree x (List.Mem.tail _ hx)) h
  | @spec γ P p k ih =>
    have hl : log refStep (PProg.spec P p k).seq =
        log refStep p ++ log refStep (k (out refStep p)).seq :=
      log_bind refStep p _
    rw [hl] at hagree
    have e : out f p = out refStep p :=
      (run_congr f refStep p (fun x hx => hagree x (List.mem_append_left _ hx))).1
    show (k (out f p)).famOK f
    rw [e]
    exact ih (out refStep p) (fun x hx => hagree x (List.mem_append_right _ hx)) h
  | sel S n op xs ys c cr k ih =>
    have hl : log refStep (PProg.sel S n op xs ys c cr k).seq =
        log refStep (scanP n op xs ys c cr) ++
          log refStep (k (out refStep (scanP n op xs ys c cr))).seq :=
      log_bind refStep _ _
    rw [hl] at hagree
    have e : out f (scanP n op xs ys c cr) = out refStep (scanP n op xs ys c cr) :=
      (run_congr f refStep _ (fun x hx => hagree x (List.mem_append_left _ hx))).1
    obtain ⟨h1, h2⟩ := h
    refine ⟨?_, ?_⟩
    · rw [e]; exact h1
    · show (k (out f (scanP n op xs ys c cr))).famOK f
      rw [e]
      exact ih _ (fun x hx => hagree x (List.mem_append_right _ hx)) h2

/-- **Parallel = sequential = reference**, for a stepper that agrees with the reference on the
reference's sequential run, when the reference keeps every carry-select scan in its family. -/
theorem parallel_exact (f : Stepper) (pp : PProg α)
    (hagree : ∀ x ∈ log refStep pp.seq, f x.1 = refStep x.1) (h : pp.famOK refStep) :
    pp.pout f = out refStep pp.seq ∧ pp.plog f = log refStep pp.seq := by
  obtain ⟨e1, e2⟩ := parallel_eq f pp (famOK_of_agree f pp hagree h)
  obtain ⟨r1, r2⟩ := run_congr f refStep pp.seq hagree
  exact ⟨e1.trans r1, e2.trans r2⟩

/-! ### A whole procedure: signed addition and subtraction in the parallel mode -/

/-- After the comparison (`signed_add`, parallel mode): a carry-select subtraction. -/
def sgnSubKK (a b : SNum) (s : Step) : PProg SNum :=
  if s.next = .SWAP then
    PProg.sel (rowStates .SUB) (max b.2.length a.2.length + 3) .SUB b.2 a.2 .blank true
      fun u => PProg.pdone (s.sym, canon (rowOf u))
  else
    PProg.sel (rowStates .SUB) (max a.2.length b.2.length + 3) .SUB a.2 b.2 .blank true
      fun u => PProg.pdone (s.sym, canon (rowOf u))

/-- After the first sign view: a carry-select addition, or a carry-select comparison, the
second sign view and a carry-select subtraction. -/
def sgnAddKK (op : Op) (a b : SNum) (s : Step) : PProg SNum :=
  if s.next = .ADD then
    PProg.sel (rowStates .ADD) (max a.2.length b.2.length + 3) .ADD a.2 b.2 .blank true
      fun t => PProg.pdone (s.sym, canon (rowOf t))
  else
    PProg.sel cmpStates (max a.2.length b.2.length + 3) .CMPEQ a.2 b.2 .blank false
      fun t => PProg.pask ⟨op, a.1, b.1, lastSym t⟩ (sgnSubKK a b)

/-- `signed_add` in the parallel mode (every scan carry-select). -/
def sgnAddPP (op : Op) (a b : SNum) : PProg SNum := PProg.pask ⟨op, a.1, b.1, .blank⟩ (sgnAddKK op a b)

theorem sgnSubKK_seq (a b : SNum) (s : Step) : (sgnSubKK a b s).seq = sgnSubK a b s := by
  unfold sgnSubKK sgnSubK
  by_cases h : s.next = .SWAP
  · rw [if_pos h, if_pos h]
    try rfl
  · rw [if_neg h, if_neg h]
    try rfl

theorem sgnAddKK_seq (op : Op) (a b : SNum) (s : Step) : (sgnAddKK op a b s).seq = sgnAddK op a b s := by
  unfold sgnAddKK sgnAddK
  by_cases h : s.next = .ADD
  · rw [if_pos h, if_pos h]
    try rfl
  · rw [if_neg h, if_neg h]
    show (scanP (max a.2.length b.2.length + 3) .CMPEQ a.2 b.2 .blank false).bind
        (fun t => Prog.ask ⟨op, a.1, b.1, lastSym t⟩ (fun s' => (sgnSubKK a b s').seq)) =
      (compareP a.2 b.2).bind (sgnCmpK op a b)
    have e : (fun s' => (sgnSubKK a b s').seq) = sgnSubK a b := funext (sgnSubKK_seq a b)
    rw [e]
    unfold compareP
    rw [bind_assoc]
    try rfl

/-- The sequential procedure of the parallel signed addition is Signed.lean's `sgnAddP`. -/
theorem sgnAddPP_seq (op : Op) (a b : SNum) : (sgnAddPP op a b).seq = sgnAddP op a b :=
  congrArg (Prog.ask _) (funext (sgnAddKK_seq op a b))

/-- On signed numbers the reference keeps every carry-select scan of a signed addition in its
family. -/
theorem sgnAddPP_fam (op : Op) (a b : SNum) (ha : a.WF) (hb : b.WF) :
    (sgnAddPP op a b).famOK refStep := by
  show (sgnAddKK op a b (refStep ⟨op, a.1, b.1, .blank⟩)).famOK refStep
  unfold sgnAddKK
  by_cases h : (refStep ⟨op, a.1, b.1, .blank⟩).next = .ADD
  · rw [if_pos h]
    refine ⟨?_, trivial⟩
    rw [scanP_trace]
    exact rows_family refStep .ADD add_grid_closed _ a.2 b.2 .blank ha.2 hb.2 (by decide)
  · rw [if_neg h]
    refine ⟨fam_of_closed false cmpStates (fun v => v ∈ V_CMP) cmp_family _ .CMPEQ a.2 b.2 .blank
      (cmp_scan_closed _ .CMPEQ a.2 b.2 (by decide) ha.2 hb.2), ?_⟩
    show (sgnSubKK a b (refStep ⟨op, a.1, b.1, lastSym (out refStep
      (scanP (max a.2.length b.2.length + 3) .CMPEQ a.2 b.2 .blank false))⟩)).famOK refStep
    unfold sgnSubKK
    by_cases h' : (refStep ⟨op, a.1, b.1, lastSym (out refStep
        (scanP (max a.2.length b.2.length + 3) .CMPEQ a.2 b.2 .blank false))⟩).next = .SWAP
    · rw [if_pos h']
      refine ⟨?_, trivial⟩
      rw [scanP_trace]
      exact rows_family refStep .SUB sub_grid_closed _ b.2 a.2 .blank hb.2 ha.2 (by decide)
    · rw [if_neg h']
      refine ⟨?_, trivial⟩
      rw [scanP_trace]
      exact rows_family refStep .SUB sub_grid_closed _ a.2 b.2 .blank ha.2 hb.2 (by decide)

/-- **Signed addition and subtraction, parallel = sequential.** For every stepper exact on the
views `VSADD op` of a signed addition (`op = SGNADD`) or subtraction (`SGNSUB`), and all signed
numbers of any lengths: the parallel procedure (every scan carry-select) returns the result of
the sequential procedure and writes its steps, and both are the reference's. -/
theorem par_signed_add_exact (op : Op) (hop : op ∈ addOps) (f : Stepper)
    (hf : ∀ v, VSADD op v → f v = refStep v) (a b : SNum) (ha : a.WF) (hb : b.WF) :
    (sgnAddPP op a b).pout f = out f (sgnAddP op a b) ∧
    (sgnAddPP op a b).plog f = log f (sgnAddP op a b) ∧
    out f (sgnAddP op a b) = out refStep (sgnAddP op a b) ∧
    log f (sgnAddP op a b) = log refStep (sgnAddP op a b) := by
  have hclosed := (sgnAdd_ref op hop a b ha hb).2.2.2
  have hagree : ∀ x ∈ log refStep (sgnAddPP op a b).seq, f x.1 = refStep x.1 := by
    rw [sgnAddPP_seq]
    exact fun x hx => hf x.1 (hclosed x hx)
  obtain ⟨p1, p2⟩ := parallel_exact f (sgnAddPP op a b) hagree (sgnAddPP_fam op a b ha hb)
  obtain ⟨s1, s2⟩ := run_exact f (VSADD op) (sgnAddP op a b) hclosed hf
  rw [sgnAddPP_seq] at p1 p2
  exact ⟨p1.trans s1.symm, p2.trans s2.symm, s1, s2⟩

/-! ### The trials of one quotient or root digit -/

/-- The trial loop of `_quotient_digit` / `_root_digit` (sequential code), at most `n` trials:
subtract `y` from `r` (`sub_rows`), ask `(DQ, borrow, digit so far, blank)` and write its
symbol as the digit; on `HALT` the digit is final and `r` (the last row that fitted) is the
remainder; otherwise go on from the difference with `y` updated by `upd` (`done` for a
quotient digit: the divisor stays; `incP .ADD2` for a root digit: the odd number grows by 2).
Returns (remainder, digit).  (Python raises after ten trials, and on a `DQ` step naming
neither `SUB` nor `HALT`; the model goes on, simplification (a) of lean/README.md.) -/
def trialLoopP (upd : List Cell → Prog (List Cell)) : Nat → List Cell → List Cell → Cell →
    Prog (List Cell × Cell)
  | 0, r, _, q => done (r, q)
  | n + 1, r, y, q =>
    (rowsP .SUB r y).bind fun t =>
      ask ⟨.DQ, lastFlag t .blank, q, .blank⟩ fun s =>
        if s.next = .HALT then done (r, s.sym)
        else (upd y).bind fun y' => trialLoopP upd n (rowOf t) y' s.sym

/-- `_quotient_digit`: the divisor `b` is subtracted until a `DQ` step halts. -/
def quotTrialsP (r b : List Cell) : Prog (List Cell × Cell) := trialLoopP (fun y => done y) 10 r b .blank

/-- `_root_digit`: `20p+1, 20p+3, …` are subtracted until a `DQ` step halts. -/
def rootTrialsP (r odd : List Cell) : Prog (List Cell × Cell) := trialLoopP (incP .ADD2) 10 r odd .blank

/-- **The parallel digit = the sequential digit** (`divide_rows`, `sqrt_rows` in the parallel
mode: `speculate(trial_probes(…), trials)`): for every stepper and every probe list, the
speculative trial block returns the sequential (remainder, digit) and writes the sequential
steps; with a probe list that holds every view of the sequential trials it never falls back. -/
theorem trial_speculate_eq (f : Stepper) (P : List View) (upd : List Cell → Prog (List Cell))
    (n : Nat) (r y : List Cell) (q : Cell) :
    specOut (batch f P) f (trialLoopP upd n r y q) = out f (trialLoopP upd n r y q) ∧
    specLog (batch f P) f (trialLoopP upd n r y q) = log f (trialLoopP upd n r y q) ∧
    ((∀ x ∈ log f (trialLoopP upd n r y q), x.1 ∈ P) → specFell (batch f P) f (trialLoopP upd n r y q) = false) :=
  ⟨(speculate_eq f _ (batch_sound f P) _).1, (speculate_eq f _ (batch_sound f P) _).2,
    speculate_no_fallback f P _⟩

/-- The chain of candidate trials, all of them (as if no `DQ` step halted): candidate `j` is
(the row before trial `j`, trial `j`'s subtraction, its `DQ` step).  Trial `j + 1` subtracts
from trial `j`'s difference, so with a fixed divisor candidate `j` has subtracted `j` copies. -/
def trialChain (f : Stepper) (upd : List Cell → Prog (List Cell)) : Nat → List Cell → List Cell →
    Cell → List (List Cell × List (View × Step) × Step)
  | 0, _, _, _ => []
  | n + 1, r, y, q =>
    (r, out f (rowsP .SUB r y),
      f ⟨.DQ, lastFlag (out f (rowsP .SUB r y)) .blank, q, .blank⟩) ::
    trialChain f upd n (rowOf (out f (rowsP .SUB r y))) (out f (upd y))
      (f ⟨.DQ, lastFlag (out f (rowsP .SUB r y)) .blank, q, .blank⟩).sym

/-- Select the first candidate whose `DQ` step halts: its row (the last row that fitted) and
the digit that step wrote. -/
def selectTrial : List (List Cell × List (View × Step) × Step) → Option (List Cell × Cell)
  | [] => none
  | (r, _, s) :: rest => if s.next = .HALT then some (r, s.sym) else selectTrial rest

/-- **Selection = the sequential loop.** Whenever a candidate is selected (a `DQ` step halts
within the trials; Python raises otherwise), the sequential trial loop returns exactly it. -/
theorem trial_select (f : Stepper) (upd : List Cell → Prog (List Cell)) (n : Nat) :
    ∀ (r y : List Cell) (q : Cell) (res : List Cell × Cell),
      selectTrial (trialChain f upd n r y q) = some res → out f (trialLoopP upd n r y q) = res := by
  induction n with
  | zero =>
    intro r y q res h
    have h' : (none : Option (List Cell × Cell)) = some res := h
    cases h'
  | succ n ih =>
    intro r y q res h
    have e1 : out f (trialLoopP upd (n + 1) r y q) =
        out f (if (f ⟨.DQ, lastFlag (out f (rowsP .SUB r y)) .blank, q, .blank⟩).next = .HALT then
            done (r, (f ⟨.DQ, lastFlag (out f (rowsP .SUB r y)) .blank, q, .blank⟩).sym)
          else (upd y).bind fun y' => trialLoopP upd n (rowOf (out f (rowsP .SUB r y))) y'
            (f ⟨.DQ, lastFlag (out f (rowsP .SUB r y)) .blank, q, .blank⟩).sym) := by
      show out f ((rowsP .SUB r y).bind _) = _
      rw [out_bind]
      try rfl
    rw [e1]
    by_cases hh : (f ⟨.DQ, lastFlag (out f (rowsP .SUB r y)) .blank, q, .blank⟩).next = .HALT
    · rw [if_pos hh, out_done]
      have h' : selectTrial (trialChain f upd (n + 1) r y q) =
          some (r, (f ⟨.DQ, lastFlag (out f (rowsP .SUB r y)) .blank, q, .blank⟩).sym) := if_pos hh
      rw [h'] at h
      exact Option.some.inj h
    · rw [if_neg hh, out_bind]
      have h' : selectTrial (trialChain f upd (n + 1) r y q) =
          selectTrial (trialChain f upd n (rowOf (out f (rowsP .SUB r y))) (out f (upd y))
            (f ⟨.DQ, lastFlag (out f (rowsP .SUB r y)) .blank, q, .blank⟩).sym) := if_neg hh
      rw [h'] at h
      exact ih _ _ _ _ h


/-- "Candidate `j` has subtracted `j` copies": its row plus `j · B` is `R`, and so on up the
chain as long as no trial borrowed. -/
def Copies (R B : Nat) : Nat → List (List Cell × List (View × Step) × Step) → Prop
  | _, [] => True
  | j, (r, t, _) :: rest => rowVal r + j * B = R ∧ (lastFlag t .blank = .blank → Copies R B (j + 1) rest)

/-- **The candidates of a quotient digit, for the reference:** with a fixed divisor `b`
(`_quotient_digit`), candidate `j` of the chain is `r − j·b` as long as no earlier trial
borrowed (each trial subtracts from the previous difference). -/
theorem trial_copies (b : List Cell) (hb : Digits b) (R : Nat) (n : Nat) :
    ∀ (r : List Cell) (q : Cell) (j : Nat), Digits r → rowVal r + j * rowVal b = R →
      Copies R (rowVal b) j (trialChain refStep (fun y => done y) n r b q) := by
  induction n with
  | zero => intro r q j _ _; trivial
  | succ n ih =>
    intro r q j hr hR
    refine ⟨hR, ?_⟩
    intro hbor
    have ht : out refStep (rowsP .SUB r b) = subTrace refStep r b := rowsP_out refStep .SUB r b
    obtain ⟨v, d, _, _⟩ := sub_correct r b hr hb
    apply ih
    · rw [ht]; exact d
    · rw [ht] at hbor ⊢
      rw [hbor] at v
      have e0 : Cell.blank.val = 0 := rfl
      rw [e0, Nat.zero_mul, Nat.add_zero] at v
      rw [Nat.add_mul, Nat.one_mul]
      omega

/-! ### Lock-step batches (`together`) -/

/-- A procedure as the runtime drives it: done, or one batch of views and the continuation
chosen from the batch's steps (a generator that yields a probe list and receives the steps). -/
inductive BProg (α : Type) : Type where
  | bdone : α → BProg α
  | bask : List View → (List Step → BProg α) → BProg α

namespace BProg

/-- The result of a run: every batch answered view by view (`drive`). -/
def bout (f : Stepper) (p : BProg α) : α :=
  BProg.rec (motive := fun _ => α) (fun a => a) (fun vs _ ih => ih (vs.map f)) p

/-- The batches of a run, each view with its step. -/
def blog (f : Stepper) (p : BProg α) : List (List (View × Step)) :=
  BProg.rec (motive := fun _ => List (List (View × Step))) (fun _ => [])
    (fun vs _ ih => (vs.map fun v => (v, f v)) :: ih (vs.map f)) p

def bmap (g : α → β) (p : BProg α) : BProg β :=
  BProg.rec (motive := fun _ => BProg β) (fun a => bdone (g a)) (fun vs _ ih => bask vs ih) p

/-- `together` for two procedures: each round's requests form one batch (the first's views,
then the second's); each gets back the steps of its own views; one that is done leaves the
other to go on alone. -/
def together2 : BProg α → BProg β → BProg (α × β)
  | bdone a, q => bmap (fun b => (a, b)) q
  | bask vs k, bdone b => bmap (fun a => (a, b)) (bask vs k)
  | bask vs k, bask ws l =>
    bask (vs ++ ws) fun ss => together2 (k (ss.take vs.length)) (l (ss.drop vs.length))

/-- Rounds side by side: round `i` of the first, then round `i` of the second. -/
def zipCat {X : Type} : List (List X) → List (List X) → List (List X)
  | [], l => l
  | a :: as, [] => a :: as
  | a :: as, b :: bs => (a ++ b) :: zipCat as bs

theorem bout_bmap (f : Stepper) (g : α → β) (p : BProg α) : bout f (bmap g p) = g (bout f p) := by
  induction p with
  | bdone a => rfl
  | bask vs k ih => exact ih (vs.map f)

theorem blog_bmap (f : Stepper) (g : α → β) (p : BProg α) : blog f (bmap g p) = blog f p := by
  induction p with
  | bdone a => rfl
  | bask vs k ih =>
    show (vs.map fun v => (v, f v)) :: blog f (bmap g (k (vs.map f))) =
      (vs.map fun v => (v, f v)) :: blog f (k (vs.map f))
    rw [ih (vs.map f)]

theorem take_app_len {X : Type} : ∀ (A B : List X), (A ++ B).take A.length = A
  | [], _ => rfl
  | a :: A, B => by
    show a :: (A ++ B).take A.length = a :: A
    rw [take_app_len A B]

theorem drop_app_len {X : Type} : ∀ (A B : List X), (A ++ B).drop A.length = B
  | [], _ => rfl
  | _ :: A, B => drop_app_len A B

theorem batch_split (f : Stepper) (vs ws : List View) :
    ((vs ++ ws).map f).take vs.length = vs.map f ∧ ((vs ++ ws).map f).drop vs.length = ws.map f := by
  have hl : vs.length = (vs.map f).length := by rw [List.length_map]
  rw [List.map_append, hl]
  exact ⟨take_app_len _ _, drop_app_len _ _⟩

end BProg

open BProg

/-- **`together` is transparent:** run in lock step, two procedures return what each returns
alone, and the batches are their rounds side by side — each procedure presents the same views
and gets (and writes) the same steps as when it runs alone. -/
theorem together_eq (f : Stepper) : ∀ (p : BProg α) (q : BProg β),
    bout f (together2 p q) = (bout f p, bout f q) ∧
      blog f (together2 p q) = zipCat (blog f p) (blog f q) := by
  intro p
  induction p with
  | bdone a =>
    intro q
    exact ⟨bout_bmap f _ q, blog_bmap f _ q⟩
  | bask vs k ih =>
    intro q
    cases q with
    | bdone b =>
      refine ⟨bout_bmap f _ (bask vs k), ?_⟩
      show blog f (bmap (fun a => (a, b)) (bask vs k)) = zipCat (blog f (bask vs k)) []
      rw [blog_bmap]
      rfl
    | bask ws l =>
      obtain ⟨e1, e2⟩ := batch_split f vs ws
      obtain ⟨h1, h2⟩ := ih (vs.map f) (l (ws.map f))
      refine ⟨?_, ?_⟩
      · show bout f (together2 (k (((vs ++ ws).map f).take vs.length))
            (l (((vs ++ ws).map f).drop vs.length))) = (bout f (k (vs.map f)), bout f (l (ws.map f)))
        rw [e1, e2, h1]
      · show ((vs ++ ws).map fun v => (v, f v)) :: blog f (together2 (k (((vs ++ ws).map f).take vs.length))
            (l (((vs ++ ws).map f).drop vs.length))) =
          ((vs.map fun v => (v, f v)) ++ (ws.map fun v => (v, f v))) ::
            zipCat (blog f (k (vs.map f))) (blog f (l (ws.map f)))
        rw [e1, e2, h2, List.map_append]

end Sketchpad
