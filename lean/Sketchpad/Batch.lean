/-
  Sketchpad.Batch — the runtime's batches, exactly as `Run.drive` presents them (issue 21).

  `Drive α` is a procedure as the runtime drives it: done, or a batch of views and the rest of the
  procedure, which reads the steps the stepper gave the batch's views.  (The stepper is a function
  of the view, the model's one assumption, Sketchpad/Parallel.lean: so the rest of the procedure
  receives the stepper's answers as a function, and reads it only at views of the batch.)
  `dlog f` is the list of batches with their steps, as `on_batch` records them in a golden
  trace; `dout f` the result.

  `PB` is a procedure with the structure Python's procedures are written in, so that one
  definition gives both the batches Python presents (`PB.drive`) and the sequential program the
  proofs are about (`PB.seq`):

  * `ask v k`       — a single view (a sign view, `DQ`, `ODD`, …): a batch of one;
  * `sel scans k`   — carry-select scans side by side (`_scan_select`, several of them when
    `together` runs them in lock step): one batch with every scan's probes (`select_probes`),
    then each scan follows the states its steps emit (`followG`: selection only; a state
    outside the family stops the scan, where Python raises);
  * `spec P p k`    — `speculate(P, follow)`: one batch of the probes `P`, then the sequential
    block `p` answered from it; at the first view the batch lacks, the rest of the block runs as
    batches of one (`specD`);
  * `tog n ps k`    — sequential programs in lock step (`together` in the sequential mode: the
    rows of a product), each round one batch (`togD`).

  `PB.seq` erases the batching: a carry-select scan becomes the sequential scan (`scanP`, one
  more column: Python's sequential limit), a speculative block its sequential code, lock-step
  rounds the interleaved asks (`roundsP`).

  For the kernel (the golden traces are checked by evaluating these definitions), a speculative
  block finds a view among its probes with a bit mask over view codes (`probeMask`), not by a
  search through the probe list.
-/
module

public import Sketchpad.Parallel

@[expose] public noncomputable section

set_option autoImplicit false

namespace Sketchpad

open Prog

variable {α β γ : Type}

/-! ### Driven procedures -/

/-- A procedure as `Run.drive` runs it: done, or a batch of views and the rest, which reads the
batch's steps. -/
inductive Drive (α : Type) : Type where
  | done : α → Drive α
  | batch : List View → (Stepper → Drive α) → Drive α

namespace Drive

/-- The result of a run with the stepper `f`. -/
def dout (f : Stepper) (p : Drive α) : α :=
  Drive.rec (motive := fun _ => α) (fun a => a) (fun _ _ ih => ih f) p

/-- The batches of a run, each view with its step (what a golden trace records). -/
def dlog (f : Stepper) (p : Drive α) : List (List (View × Step)) :=
  Drive.rec (motive := fun _ => List (List (View × Step))) (fun _ => [])
    (fun vs _ ih => (vs.map fun v => (v, f v)) :: ih f) p

/-- Sequencing (one `drive` after another). -/
def bind (p : Drive α) (q : α → Drive β) : Drive β :=
  Drive.rec (motive := fun _ => Drive β) (fun a => q a) (fun vs _ ih => batch vs ih) p

theorem dout_bind (f : Stepper) (p : Drive α) (q : α → Drive β) :
    dout f (p.bind q) = dout f (q (dout f p)) := by
  induction p with
  | done a => rfl
  | batch vs k ih => exact ih f

theorem dlog_bind (f : Stepper) (p : Drive α) (q : α → Drive β) :
    dlog f (p.bind q) = dlog f p ++ dlog f (q (dout f p)) := by
  induction p with
  | done a => rfl
  | batch vs k ih =>
    show (vs.map fun v => (v, f v)) :: dlog f ((k f).bind q) = _
    rw [ih f]
    rfl

/-- A sequential program as batches: every view a batch of its own. -/
def lift (p : Prog α) : Drive α :=
  Prog.rec (motive := fun _ => Drive α) (fun a => done a) (fun v _ ih => batch [v] fun g => ih (g v)) p

theorem dout_lift (f : Stepper) (p : Prog α) : dout f (lift p) = out f p := by
  induction p with
  | done a => rfl
  | ask v k ih => exact ih (f v)

theorem dlog_lift (f : Stepper) (p : Prog α) : dlog f (lift p) = (log f p).map fun x => [x] := by
  induction p with
  | done a => rfl
  | ask v k ih =>
    show [(v, f v)] :: dlog f (lift (k (f v))) = [(v, f v)] :: ((log f (k (f v))).map fun x => [x])
    rw [ih (f v)]

theorem bind_assoc (p : Drive α) (q : α → Drive β) (r : β → Drive γ) :
    (p.bind q).bind r = p.bind fun a => (q a).bind r := by
  induction p with
  | done a => rfl
  | batch vs k ih =>
    exact congrArg (batch vs) (funext ih)

theorem dout_batch (f : Stepper) (vs : List View) (k : Stepper → Drive α) :
    dout f (batch vs k) = dout f (k f) := rfl

theorem dlog_batch (f : Stepper) (vs : List View) (k : Stepper → Drive α) :
    dlog f (batch vs k) = (vs.map fun v => (v, f v)) :: dlog f (k f) := rfl

end Drive

open Drive

/-! ### Carry-select scans: the batch and the followed run -/

/-- A column scan as the runtime starts it: its family of states `S`, the columns a carry-select
run presents (`n`: Python's `limit - start`), the operation, the rows from the scan's first
column (units first), the first column's carry and whether there is a carry row. -/
structure Scan where
  S : States
  n : Nat
  op : Op
  xs : List Cell
  ys : List Cell
  c : Cell
  cr : Bool

/-- The views of one column under every state of the family (in the family's order). -/
def colViews (S : States) (a b : Cell) : List View := S.map fun st => ⟨st.1, a, b, st.2⟩

/-- The columns after the first, each under every state. -/
def colsViews (S : States) : Nat → List Cell → List Cell → List View
  | 0, _, _ => []
  | n + 1, xs, ys => colViews S (hd xs) (hd ys) ++ colsViews S n (tl xs) (tl ys)

/-- `select_probes`: the first column under its real state, every later column under every state. -/
def selViews (sc : Scan) : List View :=
  match sc.n with
  | 0 => []
  | n + 1 => ⟨sc.op, hd sc.xs, hd sc.ys, sc.c⟩ :: colsViews sc.S n (tl sc.xs) (tl sc.ys)

/-- Whether a state is one of the family's (`position.get(state)` is not `None`). -/
def inStates (S : States) (op : Op) (c : Cell) : Bool := S.any fun st => decide (st.1 = op) && decide (st.2 = c)

/-- Follow the emitted states through the answered columns (selection only; `g` is read only at
the probe of the followed state, a view of the batch).  A state outside the family stops the scan
(Python raises `StepperFault`); so does running out of columns. -/
def followG (g : Stepper) (cr : Bool) (S : States) : Nat → List Cell → List Cell → Op → Cell → List (View × Step)
  | 0, _, _, _, _ => []
  | n + 1, xs, ys, op, c =>
    if inStates S op c = true then
      if (g ⟨op, hd xs, hd ys, c⟩).next.isScan = true then
        (⟨op, hd xs, hd ys, c⟩, g ⟨op, hd xs, hd ys, c⟩) ::
          followG g cr S n (tl xs) (tl ys) (g ⟨op, hd xs, hd ys, c⟩).next (nextC cr (g ⟨op, hd xs, hd ys, c⟩))
      else [(⟨op, hd xs, hd ys, c⟩, g ⟨op, hd xs, hd ys, c⟩)]
    else []

/-- The run a carry-select scan writes: its first column under its real state, then the
followed states. -/
def followScan (g : Stepper) (sc : Scan) : List (View × Step) :=
  match sc.n with
  | 0 => []
  | n + 1 =>
    if (g ⟨sc.op, hd sc.xs, hd sc.ys, sc.c⟩).next.isScan = true then
      (⟨sc.op, hd sc.xs, hd sc.ys, sc.c⟩, g ⟨sc.op, hd sc.xs, hd sc.ys, sc.c⟩) ::
        followG g sc.cr sc.S n (tl sc.xs) (tl sc.ys) (g ⟨sc.op, hd sc.xs, hd sc.ys, sc.c⟩).next
          (nextC sc.cr (g ⟨sc.op, hd sc.xs, hd sc.ys, sc.c⟩))
    else [(⟨sc.op, hd sc.xs, hd sc.ys, sc.c⟩, g ⟨sc.op, hd sc.xs, hd sc.ys, sc.c⟩)]

/-! ### Speculative blocks -/

/-- A cell's code: the index of its symbol in `CELL_SYMBOLS` (`0`–`9`, `_`, `+`, `-`, `<`, `=`,
`>`, `Z`, `N`). -/
def Cell.code : Cell → Nat
  | .d0 => 0 | .d1 => 1 | .d2 => 2 | .d3 => 3 | .d4 => 4
  | .d5 => 5 | .d6 => 6 | .d7 => 7 | .d8 => 8 | .d9 => 9
  | .blank => 10 | .plus => 11 | .minus => 12 | .less => 13 | .equal => 14
  | .greater => 15 | .zero => 16 | .nonzero => 17

/-- An operation's code: its index in `NEXT_WORDS` (`OPS` then `CONTROL`). -/
def Op.code : Op → Nat
  | .ADD => 0 | .SUB => 1 | .CMPEQ => 2 | .CMPLT => 3 | .CMPGT => 4 | .MUL => 5 | .ZT => 6
  | .INC => 7 | .ADD2 => 8 | .DQ => 9 | .ODD => 10 | .NEG => 11 | .ABS => 12 | .SGNADD => 13
  | .SGNSUB => 14 | .SGNMUL => 15 | .SGNDIV => 16 | .HALT => 17 | .CMP => 18 | .SWAP => 19
  | .ADJ => 20

/-- An operation's slot in a probe mask: the operations of speculative batches first (so that
their masks stay small numbers), then the others. -/
def Op.slot : Op → Nat
  | .SUB => 0 | .DQ => 1 | .ADD => 2 | .ODD => 3 | .ADD2 => 4 | .INC => 5 | .CMPEQ => 6 | .CMPLT => 7
  | .CMPGT => 8 | .MUL => 9 | .ZT => 10 | .NEG => 11 | .ABS => 12 | .SGNADD => 13 | .SGNSUB => 14
  | .SGNMUL => 15 | .SGNDIV => 16 | .HALT => 17 | .CMP => 18 | .SWAP => 19 | .ADJ => 20

/-- A view as a number below `21 · 18³`: its bit in a probe mask. -/
def viewCode (v : View) : Nat := ((v.op.slot * 18 + v.a.code) * 18 + v.b.code) * 18 + v.c.code

/-- The probes of a speculative batch as a set of view codes (one bit each), accumulated from
the first probe on. -/
def maskAcc : Nat → List View → Nat
  | m, [] => m
  | m, v :: vs => maskAcc (m ||| 2 ^ viewCode v) vs

def probeMask (P : List View) : Nat := maskAcc 0 P

/-- Whether a view is among the probes (`answers.get(view)` is not `None`). -/
def inMask (m : Nat) (v : View) : Bool := Nat.testBit m (viewCode v)

/-- The rest of a speculative block: each view it asks answered from the batch; at the first
view the batch lacks, the rest runs as batches of one (Python's fallback). -/
def specD (m : Nat) (g : Stepper) (p : Prog γ) (k : γ → Drive α) : Drive α :=
  Prog.rec (motive := fun _ => Drive α) (fun c => k c)
    (fun v k' ih => if inMask m v = true then ih (g v) else (Drive.lift (Prog.ask v k')).bind k) p

theorem specD_bind (m : Nat) (g : Stepper) (p : Prog γ) (k : γ → Drive α) (q : α → Drive β) :
    (specD m g p k).bind q = specD m g p (fun c => (k c).bind q) := by
  induction p with
  | done c => rfl
  | ask v k' ih =>
    show (if inMask m v = true then specD m g (k' (g v)) k else (Drive.lift (Prog.ask v k')).bind k).bind q =
      (if inMask m v = true then specD m g (k' (g v)) (fun c => (k c).bind q)
        else (Drive.lift (Prog.ask v k')).bind (fun c => (k c).bind q))
    by_cases h : inMask m v = true
    · rw [if_pos h, if_pos h]; exact ih (g v)
    · rw [if_neg h, if_neg h]; exact Drive.bind_assoc _ _ _

/-! ### Lock-step rounds (`together` in the sequential mode; `roundsP` is in Driver.lean) -/

/-- At most `n` rounds, each the pending views as one batch (none once every program is done). -/
def togD (k : List (Prog γ) → Drive α) : Nat → List (Prog γ) → Drive α
  | 0, ps => k ps
  | n + 1, ps => if pend ps = [] then k ps else Drive.batch (pend ps) fun g => togD k n (advance g ps)

theorem togD_bind (k : List (Prog γ) → Drive α) (q : α → Drive β) : ∀ (n : Nat) (ps : List (Prog γ)),
    (togD k n ps).bind q = togD (fun r => (k r).bind q) n ps
  | 0, _ => rfl
  | n + 1, ps => by
    show (if pend ps = [] then k ps else Drive.batch (pend ps) fun g => togD k n (advance g ps)).bind q =
      (if pend ps = [] then (k ps).bind q
        else Drive.batch (pend ps) fun g => togD (fun r => (k r).bind q) n (advance g ps))
    by_cases h : pend ps = []
    · rw [if_pos h, if_pos h]
    · rw [if_neg h, if_neg h]
      exact congrArg (Drive.batch (pend ps)) (funext fun (g : Stepper) => togD_bind k q n (advance g ps))

/-! ### Procedures as Python writes them -/

/-- A procedure of the runtime, in either mode (see the header). -/
inductive PB (α : Type) : Type 1 where
  | done : α → PB α
  | ask : View → (Step → PB α) → PB α
  | sel : List Scan → (List (List (View × Step)) → PB α) → PB α
  | spec {γ : Type} : List View → Prog γ → (γ → PB α) → PB α
  | tog {γ : Type} : Nat → List (Prog γ) → (List (Prog γ) → PB α) → PB α

namespace PB

/-- Sequencing. -/
def bind (p : PB α) (q : α → PB β) : PB β :=
  PB.rec (motive := fun _ => PB β) (fun a => q a) (fun v _ ih => ask v ih)
    (fun scs _ ih => sel scs ih) (fun P b _ ih => spec P b ih) (fun n ps _ ih => tog n ps ih) p

/-- A sequential program as a procedure of single views. -/
def lift (p : Prog α) : PB α :=
  Prog.rec (motive := fun _ => PB α) (fun a => done a) (fun v _ ih => ask v ih) p

/-- The batches Python presents (`Run.drive` with `on_batch`), and the result. -/
def drive (p : PB α) : Drive α :=
  PB.rec (motive := fun _ => Drive α) (fun a => Drive.done a)
    (fun v _ ih => Drive.batch [v] fun g => ih (g v))
    (fun scs _ ih => Drive.batch (scs.flatMap selViews) fun g => ih (scs.map (followScan g)))
    (fun P b _ ih => Drive.batch P fun g => specD (probeMask P) g b ih)
    (fun n ps _ ih => togD ih n ps) p

/-- The sequential scans of a batch of carry-select scans, one after another, each with
Python's sequential limit (one column more than the carry-select run). -/
def scansP : List Scan → Prog (List (List (View × Step)))
  | [] => Prog.done []
  | sc :: scs => (scanP (sc.n + 1) sc.op sc.xs sc.ys sc.c sc.cr).bind fun t =>
      (scansP scs).bind fun ts => Prog.done (t :: ts)

/-- The sequential program (`parallel=False`): no batching at all. -/
def seq (p : PB α) : Prog α :=
  PB.rec (motive := fun _ => Prog α) (fun a => Prog.done a) (fun v _ ih => Prog.ask v ih)
    (fun scs _ ih => (scansP scs).bind ih) (fun _ b _ ih => b.bind ih)
    (fun n ps _ ih => (roundsP n ps).bind ih) p

/-- Driving a sequenced procedure is driving its parts in sequence. -/
theorem drive_bind (p : PB α) (q : α → PB β) : (p.bind q).drive = p.drive.bind fun a => (q a).drive := by
  induction p with
  | done a => rfl
  | ask v k ih =>
    exact congrArg (Drive.batch [v]) (funext fun (g : Stepper) => ih (g v))
  | sel scs k ih =>
    exact congrArg (Drive.batch _) (funext fun (g : Stepper) => ih (scs.map (followScan g)))
  | spec P b k ih =>
    show Drive.batch P (fun g => specD (probeMask P) g b fun c => ((k c).bind q).drive) =
      Drive.batch P (fun g => (specD (probeMask P) g b fun c => (k c).drive).bind _)
    refine congrArg (Drive.batch P) (funext fun (g : Stepper) => ?_)
    rw [specD_bind]
    exact congrArg (specD (probeMask P) g b) (funext fun c => ih c)
  | tog n ps k ih =>
    show togD (fun r => ((k r).bind q).drive) n ps = (togD (fun r => (k r).drive) n ps).bind _
    rw [togD_bind]
    exact congrArg (fun K => togD K n ps) (funext fun r => ih r)

/-- The sequential program of a sequenced procedure is the sequenced programs. -/
theorem seq_bind (p : PB α) (q : α → PB β) (f : Stepper) :
    out f (p.bind q).seq = out f ((p.seq).bind fun a => (q a).seq) ∧
      log f (p.bind q).seq = log f ((p.seq).bind fun a => (q a).seq) := by
  induction p with
  | done a => exact ⟨rfl, rfl⟩
  | ask v k ih =>
    obtain ⟨h1, h2⟩ := ih (f v)
    refine ⟨h1, ?_⟩
    show (v, f v) :: log f ((k (f v)).bind q).seq = (v, f v) :: log f (((k (f v)).seq).bind _)
    rw [h2]
  | sel scs k ih =>
    obtain ⟨h1, h2⟩ := ih (out f (scansP scs))
    show out f ((scansP scs).bind fun rs => ((k rs).bind q).seq) =
        out f (((scansP scs).bind fun rs => (k rs).seq).bind _) ∧
      log f ((scansP scs).bind fun rs => ((k rs).bind q).seq) =
        log f (((scansP scs).bind fun rs => (k rs).seq).bind _)
    rw [Prog.bind_assoc, out_bind, out_bind, log_bind, log_bind, h1, h2]
    exact ⟨rfl, rfl⟩
  | spec P b k ih =>
    obtain ⟨h1, h2⟩ := ih (out f b)
    show out f (b.bind fun c => ((k c).bind q).seq) = out f ((b.bind fun c => (k c).seq).bind _) ∧
      log f (b.bind fun c => ((k c).bind q).seq) = log f ((b.bind fun c => (k c).seq).bind _)
    rw [Prog.bind_assoc, out_bind, out_bind, log_bind, log_bind, h1, h2]
    exact ⟨rfl, rfl⟩
  | tog n ps k ih =>
    obtain ⟨h1, h2⟩ := ih (out f (roundsP n ps))
    show out f ((roundsP n ps).bind fun rs => ((k rs).bind q).seq) =
        out f (((roundsP n ps).bind fun rs => (k rs).seq).bind _) ∧
      log f ((roundsP n ps).bind fun rs => ((k rs).bind q).seq) =
        log f (((roundsP n ps).bind fun rs => (k rs).seq).bind _)
    rw [Prog.bind_assoc, out_bind, out_bind, log_bind, log_bind, h1, h2]
    exact ⟨rfl, rfl⟩

/-- Built from single views and lock-step rounds only: what the sequential mode builds (no
carry-select scan, no speculative block). -/
def NoPar (p : PB α) : Prop :=
  PB.rec (motive := fun _ => Prop) (fun _ => True) (fun _ _ ih => ∀ s, ih s) (fun _ _ _ => False)
    (fun _ _ _ _ => False) (fun _ _ _ ih => ∀ r, ih r) p

theorem seq_lift (p : Prog α) : (PB.lift p).seq = p := by
  induction p with
  | done a => rfl
  | ask v k ih => exact congrArg (Prog.ask v) (funext ih)

theorem drive_lift (p : Prog α) : (PB.lift p).drive = Drive.lift p := by
  induction p with
  | done a => rfl
  | ask v k ih => exact congrArg (Drive.batch [v]) (funext fun (g : Stepper) => ih (g v))

theorem noPar_lift (p : Prog α) : (PB.lift p).NoPar := by
  induction p with
  | done a => trivial
  | ask v k ih => exact fun s => ih s

theorem noPar_bind (p : PB α) (q : α → PB β) (hp : p.NoPar) (hq : ∀ a, (q a).NoPar) : (p.bind q).NoPar := by
  induction p with
  | done a => exact hq a
  | ask v k ih => exact fun s => ih s (hp s)
  | sel scs k ih => exact hp.elim
  | spec P b k ih => exact hp.elim
  | tog n ps k ih => exact fun r => ih r (hp r)

theorem dlog_bind (f : Stepper) (p : PB α) (q : α → PB β) :
    dlog f (p.bind q).drive = dlog f p.drive ++ dlog f (q (dout f p.drive)).drive := by
  rw [drive_bind, Drive.dlog_bind]

theorem dout_bind (f : Stepper) (p : PB α) (q : α → PB β) :
    dout f (p.bind q).drive = dout f (q (dout f p.drive)).drive := by
  rw [drive_bind, Drive.dout_bind]

/-- Lock-step rounds as batches, flattened, are the rounds as sequential asks. -/
theorem togD_flat (f : Stepper) (k : List (Prog γ) → Drive α) : ∀ (n : Nat) (ps : List (Prog γ)),
    (dlog f (togD k n ps)).flatten = log f (roundsP n ps) ++ (dlog f (k (out f (roundsP n ps)))).flatten ∧
      dout f (togD k n ps) = dout f (k (out f (roundsP n ps)))
  | 0, ps => ⟨rfl, rfl⟩
  | n + 1, ps => by
    by_cases h : pend ps = []
    · have e1 : togD k (n + 1) ps = k ps := if_pos h
      have e2 : roundsP (n + 1) ps = Prog.done ps := if_pos h
      rw [e1, e2]
      exact ⟨rfl, rfl⟩
    · have e1 : togD k (n + 1) ps = Drive.batch (pend ps) fun g => togD k n (advance g ps) := if_neg h
      have e2 : roundsP (n + 1) ps = (roundP ps).bind (roundsP n) := if_neg h
      obtain ⟨i1, i2⟩ := togD_flat f k n (advance f ps)
      rw [e1, e2, Drive.dlog_batch, Drive.dout_batch, out_bind, log_bind, out_roundP, log_roundP,
        List.flatten_cons, i1, List.append_assoc]
      exact ⟨rfl, i2⟩

/-- **The sequential mode's batches are the sequential program's views**: flattened, the
batches of a procedure without carry-select scans and speculative blocks are its sequential
program's log, and the results agree (for every stepper). -/
theorem seq_flat (f : Stepper) (p : PB α) (h : p.NoPar) :
    (dlog f p.drive).flatten = log f p.seq ∧ dout f p.drive = out f p.seq := by
  induction p with
  | done a => exact ⟨rfl, rfl⟩
  | ask v k ih =>
    obtain ⟨h1, h2⟩ := ih (f v) (h (f v))
    refine ⟨?_, h2⟩
    show [(v, f v)] ++ (dlog f (k (f v)).drive).flatten = (v, f v) :: log f (k (f v)).seq
    rw [h1]; rfl
  | sel scs k ih => exact h.elim
  | spec P b k ih => exact h.elim
  | tog n ps k ih =>
    obtain ⟨t1, t2⟩ := togD_flat f (fun r => (k r).drive) n ps
    obtain ⟨h1, h2⟩ := ih (out f (roundsP n ps)) (h _)
    show (dlog f (togD (fun r => (k r).drive) n ps)).flatten = log f ((roundsP n ps).bind fun r => (k r).seq) ∧
      dout f (togD (fun r => (k r).drive) n ps) = out f ((roundsP n ps).bind fun r => (k r).seq)
    rw [t1, t2, log_bind, out_bind, h1, h2]
    exact ⟨rfl, rfl⟩

end PB

end Sketchpad
