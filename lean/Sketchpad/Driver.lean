/-
  Sketchpad.Driver — how a procedure drives the stepper: an interaction program over an
  arbitrary stepper `f : View → Step` (mirrors `runtime.drive`, `ask` and `scan` of
  `sketchpad/runtime.py` in its sequential mode).

  A procedure is a `Prog α`: either it is done with a result, or it presents one view and
  continues with a program chosen from the step it gets back (`ask`).  Column scans are
  programs built from `ask` (`scanP`); the single views a procedure reads between scans
  (`SGN+`, `SGN-`, `SGN*`, `NEG`, `ABS`, `DQ`, `ODD`) are single `ask` nodes; sequencing is
  `bind`.  `out f p` is the result of running `p` with `f`, `log f p` the (view, step) pairs the
  run presents, in order.  Everything the runtime writes is a step's symbol or flag, so two
  runs write the same sheets and return the same results when their step lists are equal.

  The generic facts, for every program:
  * `run_congr`: a run depends on the stepper only through the views it presents;
  * `run_agree`: two runs with the same steps had steppers agreeing on every view presented;
  * `out_bind`, `log_bind`, `bind_congr`, `closed_bind`: sequencing, so exactness composes;
  * `reduction_of`: for a family of programs, "exact on the finite list `VP`" ⇔ "exact on every
    input" as soon as the reference runs present only views of `VP` (closure) and every view of
    `VP` is presented by some reference run (witnesses).
  Plus the scan as a program (`scanP`, equal to `trace` of Sketchpad.Runtime when the scan has a
  carry row) and the scan invariant `scanP_inv`, and the interface of an exact procedure on
  signed numbers (`SNum`, `ExactProc1`, `ExactProc2`) that the expression evaluator composes.
-/
module

public import Sketchpad.Runtime
public import Sketchpad.Table

@[expose] public noncomputable section

set_option autoImplicit false

namespace Sketchpad

/-- An interaction program: done with a result, or present a view and continue with the
program chosen by the step the stepper answers. -/
inductive Prog (α : Type) where
  | done : α → Prog α
  | ask : View → (Step → Prog α) → Prog α

namespace Prog

variable {α β γ : Type}

/-- Sequencing: run `p`, then the program `q` chooses from `p`'s result. -/
def bind (p : Prog α) (q : α → Prog β) : Prog β :=
  Prog.rec (motive := fun _ => Prog β) (fun a => q a) (fun v _ ih => ask v ih) p

/-- The result of running `p` with the stepper `f`. -/
def out (f : Stepper) (p : Prog α) : α :=
  Prog.rec (motive := fun _ => α) (fun a => a) (fun v _ ih => ih (f v)) p

/-- The (view, step) pairs a run presents, in order. -/
def log (f : Stepper) (p : Prog α) : List (View × Step) :=
  Prog.rec (motive := fun _ => List (View × Step)) (fun _ => [])
    (fun v _ ih => (v, f v) :: ih (f v)) p

/-- The steps of a run: everything it writes. -/
def steps (f : Stepper) (p : Prog α) : List Step := (log f p).map Prod.snd

/-- The views a run presents. -/
def views (f : Stepper) (p : Prog α) : List View := (log f p).map Prod.fst

theorem bind_done (a : α) (q : α → Prog β) : (done a).bind q = q a := rfl

theorem bind_ask (v : View) (k : Step → Prog α) (q : α → Prog β) :
    (ask v k).bind q = ask v (fun s => (k s).bind q) := rfl

theorem out_done (f : Stepper) (a : α) : out f (done a) = a := rfl

theorem out_ask (f : Stepper) (v : View) (k : Step → Prog α) :
    out f (ask v k) = out f (k (f v)) := rfl

theorem log_done (f : Stepper) (a : α) : log f (done a) = [] := rfl

theorem log_ask (f : Stepper) (v : View) (k : Step → Prog α) :
    log f (ask v k) = (v, f v) :: log f (k (f v)) := rfl

/-! ### Sequencing -/

theorem out_bind (f : Stepper) (p : Prog α) (q : α → Prog β) :
    out f (p.bind q) = out f (q (out f p)) := by
  induction p with
  | done a => rfl
  | ask v k ih => exact ih (f v)

theorem log_bind (f : Stepper) (p : Prog α) (q : α → Prog β) :
    log f (p.bind q) = log f p ++ log f (q (out f p)) := by
  induction p with
  | done a => rfl
  | ask v k ih =>
    show (v, f v) :: log f ((k (f v)).bind q) = (v, f v) :: (log f (k (f v)) ++ _)
    rw [ih (f v)]
    rfl

theorem bind_assoc (p : Prog α) (q : α → Prog β) (r : β → Prog γ) :
    (p.bind q).bind r = p.bind (fun a => (q a).bind r) := by
  induction p with
  | done a => rfl
  | ask v k ih =>
    show ask v (fun s => ((k s).bind q).bind r) = ask v (fun s => (k s).bind (fun a => (q a).bind r))
    have e : (fun s => ((k s).bind q).bind r) = (fun s => (k s).bind (fun a => (q a).bind r)) :=
      funext ih
    rw [e]

theorem mem_log_bind (f : Stepper) (p : Prog α) (q : α → Prog β) (x : View × Step) :
    x ∈ log f (p.bind q) ↔ x ∈ log f p ∨ x ∈ log f (q (out f p)) := by
  rw [log_bind, List.mem_append]

/-! ### Every recorded step is the stepper's answer -/

theorem log_snd (f : Stepper) (p : Prog α) : ∀ x ∈ log f p, x.2 = f x.1 := by
  induction p with
  | done a => intro x hx; cases hx
  | ask v k ih =>
    intro x hx
    rw [log_ask] at hx
    rcases List.mem_cons.mp hx with e | e
    · subst e; rfl
    · exact ih (f v) x e

end Prog

open Prog

variable {α β : Type}

/-! ### Congruence and agreement -/

/-- **Congruence.** A run depends on the stepper only through the views it presents: if `f`
agrees with `g` on every view of `g`'s run, the runs are equal (same result, same log). -/
theorem run_congr (f g : Stepper) (p : Prog α) (h : ∀ x ∈ log g p, f x.1 = g x.1) :
    out f p = out g p ∧ log f p = log g p := by
  induction p with
  | done a => exact ⟨rfl, rfl⟩
  | ask v k ih =>
    have hv : f v = g v := h (v, g v) (List.Mem.head _)
    have ht : ∀ x ∈ log g (k (g v)), f x.1 = g x.1 := fun x hx => h x (List.Mem.tail _ hx)
    obtain ⟨h1, h2⟩ := ih (g v) ht
    refine ⟨?_, ?_⟩
    · show out f (k (f v)) = out g (k (g v))
      rw [hv]; exact h1
    · show (v, f v) :: log f (k (f v)) = (v, g v) :: log g (k (g v))
      rw [hv, h2]

theorem run_congr_steps (f g : Stepper) (p : Prog α) (h : ∀ x ∈ log g p, f x.1 = g x.1) :
    steps f p = steps g p := by
  unfold steps
  rw [(run_congr f g p h).2]

/-- **Agreement.** Two runs of `p` that write the same steps had steppers agreeing on every view
the runs presented (each view is read off the sheet that the equal steps wrote alike). -/
theorem run_agree (f g : Stepper) (p : Prog α) (h : steps f p = steps g p) :
    ∀ x ∈ log g p, f x.1 = g x.1 := by
  induction p with
  | done a => intro x hx; cases hx
  | ask v k ih =>
    have h' : f v :: steps f (k (f v)) = g v :: steps g (k (g v)) := h
    have hv : f v = g v := (List.cons.inj h').1
    have ht : steps f (k (g v)) = steps g (k (g v)) := by
      have := (List.cons.inj h').2
      rw [hv] at this
      exact this
    intro x hx
    rw [log_ask] at hx
    rcases List.mem_cons.mp hx with e | e
    · subst e; exact hv
    · exact ih (g v) ht x e

/-- Equal steps give equal results (and equal logs). -/
theorem out_eq_of_steps (f g : Stepper) (p : Prog α) (h : steps f p = steps g p) :
    out f p = out g p ∧ log f p = log g p :=
  run_congr f g p (run_agree f g p h)

/-- Sequencing of exact runs: if `f` agrees with `g` on the views of `g`'s run of `p` and of
`g`'s run of the continuation it chooses, the sequenced runs are equal. -/
theorem bind_congr (f g : Stepper) (p : Prog α) (q : α → Prog β)
    (hp : ∀ x ∈ log g p, f x.1 = g x.1) (hq : ∀ x ∈ log g (q (out g p)), f x.1 = g x.1) :
    out f (p.bind q) = out g (p.bind q) ∧ log f (p.bind q) = log g (p.bind q) := by
  apply run_congr
  intro x hx
  rcases (mem_log_bind g p q x).mp hx with e | e
  · exact hp x e
  · exact hq x e

/-- **Composition of exact procedures.** If the reference run of `p` presents only views in
`S` and returns a result satisfying `A`, and every continuation on an `A`-result presents only
views in `S`, then so does the sequenced program. -/
theorem closed_bind (g : Stepper) (S : View → Prop) (A : α → Prop) (p : Prog α)
    (q : α → Prog β) (hp : ∀ x ∈ log g p, S x.1) (hA : A (out g p))
    (hq : ∀ a, A a → ∀ x ∈ log g (q a), S x.1) :
    ∀ x ∈ log g (p.bind q), S x.1 := by
  intro x hx
  rcases (mem_log_bind g p q x).mp hx with e | e
  · exact hp x e
  · exact hq _ hA x e

/-- Exactness from closure: if the reference run of `p` presents only views of `S` and `f`
agrees with the reference on `S`, `f` runs `p` exactly as the reference. -/
theorem run_exact (f : Stepper) (S : View → Prop) (p : Prog α)
    (hclosed : ∀ x ∈ log refStep p, S x.1) (hf : ∀ v, S v → f v = refStep v) :
    out f p = out refStep p ∧ log f p = log refStep p :=
  run_congr f refStep p (fun x hx => hf x.1 (hclosed x hx))

/-! ### The reduction, for any family of programs -/

/-- **Reduction (generic).** For programs `P i` on the inputs `D`: if every view the reference
runs present lies in `VP` (closure) and every view of `VP` is presented by some reference run
on an input of `D` (witnesses), then a stepper agrees with the reference on `VP` iff it runs
every program of the family exactly as the reference (same steps, hence same writes). -/
theorem reduction_of {ι : Type} (P : ι → Prog α) (D : ι → Prop) (VP : View → Prop)
    (hclosed : ∀ i, D i → ∀ x ∈ log refStep (P i), VP x.1)
    (hwit : ∀ v, VP v → ∃ i, D i ∧ v ∈ views refStep (P i)) (f : Stepper) :
    (∀ v, VP v → f v = refStep v) ↔ ∀ i, D i → steps f (P i) = steps refStep (P i) := by
  constructor
  · intro hf i hi
    exact run_congr_steps f refStep (P i) (fun x hx => hf x.1 (hclosed i hi x hx))
  · intro hrun v hv
    obtain ⟨i, hi, hmem⟩ := hwit v hv
    obtain ⟨x, hx, rfl⟩ := List.mem_map.mp hmem
    exact run_agree f refStep (P i) (hrun i hi) x hx

/-- Witnesses from a generated list (the form `derive/leangen` emits): each entry pairs a view
with an input whose reference run presents it. -/
theorem wit_of_list {ι : Type} (P : ι → Prog α) (D : ι → Prop) (W : List (View × ι))
    (hok : ∀ w ∈ W, D w.2 ∧ w.1 ∈ views refStep (P w.2)) :
    ∀ v ∈ W.map Prod.fst, ∃ i, D i ∧ v ∈ views refStep (P i) := by
  intro v hv
  obtain ⟨w, hw, rfl⟩ := List.mem_map.mp hv
  exact ⟨w.2, hok w hw⟩

/-! ### Column scans as programs -/

/-- A column scan as a program (`runtime.scan`, sequential mode): present
`(op, x_i, y_i, c_i)`, and go on with the step's next operation while it is a scan operation,
for at most `n` columns.  With a carry row (`cr = true`: additions, subtractions, product rows)
the next column's third cell is the step's flag; without one (`cr = false`: comparison, zero
test, increments, where Python passes `carry=None`) it stays blank.  The result is the scan's
trace, which is also its log (`scanP_log`). -/
def scanP : Nat → Op → List Cell → List Cell → Cell → Bool → Prog (List (View × Step))
  | 0, _, _, _, _, _ => done []
  | n + 1, op, xs, ys, c, cr =>
    ask ⟨op, hd xs, hd ys, c⟩ fun s =>
      if s.next.isScan = true then
        (scanP n s.next (tl xs) (tl ys) (if cr = true then s.flag else .blank) cr).bind
          fun t => done ((⟨op, hd xs, hd ys, c⟩, s) :: t)
      else done [(⟨op, hd xs, hd ys, c⟩, s)]

/-- The third cell of the next column: the flag with a carry row, blank without. -/
def nextC (cr : Bool) (s : Step) : Cell := if cr = true then s.flag else .blank

theorem nextC_true (s : Step) : nextC true s = s.flag := rfl

theorem nextC_false (s : Step) : nextC false s = .blank := rfl

theorem scanP_zero (op : Op) (xs ys : List Cell) (c : Cell) (cr : Bool) :
    scanP 0 op xs ys c cr = done [] := rfl

theorem scanP_succ (n : Nat) (op : Op) (xs ys : List Cell) (c : Cell) (cr : Bool) :
    scanP (n + 1) op xs ys c cr = ask ⟨op, hd xs, hd ys, c⟩ fun s =>
      if s.next.isScan = true then
        (scanP n s.next (tl xs) (tl ys) (nextC cr s) cr).bind
          fun t => done ((⟨op, hd xs, hd ys, c⟩, s) :: t)
      else done [(⟨op, hd xs, hd ys, c⟩, s)] := rfl

/-- One column that continues: result and log both gain the column's pair. -/
theorem scanP_cont (f : Stepper) (n : Nat) (op : Op) (xs ys : List Cell) (c : Cell) (cr : Bool)
    (h : (f ⟨op, hd xs, hd ys, c⟩).next.isScan = true) :
    out f (scanP (n + 1) op xs ys c cr) =
      (⟨op, hd xs, hd ys, c⟩, f ⟨op, hd xs, hd ys, c⟩) ::
        out f (scanP n (f ⟨op, hd xs, hd ys, c⟩).next (tl xs) (tl ys)
          (nextC cr (f ⟨op, hd xs, hd ys, c⟩)) cr) ∧
    log f (scanP (n + 1) op xs ys c cr) =
      (⟨op, hd xs, hd ys, c⟩, f ⟨op, hd xs, hd ys, c⟩) ::
        log f (scanP n (f ⟨op, hd xs, hd ys, c⟩).next (tl xs) (tl ys)
          (nextC cr (f ⟨op, hd xs, hd ys, c⟩)) cr) := by
  rw [scanP_succ, out_ask, log_ask, if_pos h, out_bind, log_bind]
  exact ⟨rfl, by rw [log_done, List.append_nil]⟩

/-- The last column of a scan. -/
theorem scanP_halt (f : Stepper) (n : Nat) (op : Op) (xs ys : List Cell) (c : Cell) (cr : Bool)
    (h : (f ⟨op, hd xs, hd ys, c⟩).next.isScan = false) :
    out f (scanP (n + 1) op xs ys c cr) = [(⟨op, hd xs, hd ys, c⟩, f ⟨op, hd xs, hd ys, c⟩)] ∧
    log f (scanP (n + 1) op xs ys c cr) = [(⟨op, hd xs, hd ys, c⟩, f ⟨op, hd xs, hd ys, c⟩)] := by
  have h' : ¬ ((f ⟨op, hd xs, hd ys, c⟩).next.isScan = true) := by rw [h]; decide
  rw [scanP_succ, out_ask, log_ask, if_neg h']
  exact ⟨rfl, rfl⟩

/-- One column that continues, with every piece named (the form the proofs rewrite with). -/
theorem scanP_step (f : Stepper) (n : Nat) (op : Op) (xs ys : List Cell) (c : Cell) (cr : Bool)
    (v : View) (s : Step) (op' : Op) (c' : Cell)
    (hv : (⟨op, hd xs, hd ys, c⟩ : View) = v) (hf : f v = s) (hn : s.next = op')
    (hsc : op'.isScan = true) (hc : nextC cr s = c') :
    out f (scanP (n + 1) op xs ys c cr) = (v, s) :: out f (scanP n op' (tl xs) (tl ys) c' cr) ∧
    log f (scanP (n + 1) op xs ys c cr) = (v, s) :: log f (scanP n op' (tl xs) (tl ys) c' cr) := by
  subst hv hf hn hc
  exact scanP_cont f n op xs ys c cr hsc

/-- The last column of a scan, with every piece named. -/
theorem scanP_last (f : Stepper) (n : Nat) (op : Op) (xs ys : List Cell) (c : Cell) (cr : Bool)
    (v : View) (s : Step)
    (hv : (⟨op, hd xs, hd ys, c⟩ : View) = v) (hf : f v = s) (hsc : s.next.isScan = false) :
    out f (scanP (n + 1) op xs ys c cr) = [(v, s)] ∧ log f (scanP (n + 1) op xs ys c cr) = [(v, s)] := by
  subst hv hf
  exact scanP_halt f n op xs ys c cr hsc

/-- A scan of at least one column presents at least one view. -/
theorem scanP_ne_nil (f : Stepper) (n : Nat) (op : Op) (xs ys : List Cell) (c : Cell) (cr : Bool) :
    out f (scanP (n + 1) op xs ys c cr) ≠ [] := by
  cases hs : (f ⟨op, hd xs, hd ys, c⟩).next.isScan with
  | false => rw [(scanP_halt f n op xs ys c cr hs).1]; exact List.cons_ne_nil _ _
  | true => rw [(scanP_cont f n op xs ys c cr hs).1]; exact List.cons_ne_nil _ _

/-- A scan's result is its log. -/
theorem scanP_log (f : Stepper) (n : Nat) : ∀ (op : Op) (xs ys : List Cell) (c : Cell) (cr : Bool),
    log f (scanP n op xs ys c cr) = out f (scanP n op xs ys c cr) := by
  induction n with
  | zero => intro op xs ys c cr; rfl
  | succ n ih =>
    intro op xs ys c cr
    cases hs : (f ⟨op, hd xs, hd ys, c⟩).next.isScan with
    | false =>
      rw [(scanP_halt f n op xs ys c cr hs).1, (scanP_halt f n op xs ys c cr hs).2]
    | true =>
      rw [(scanP_cont f n op xs ys c cr hs).1, (scanP_cont f n op xs ys c cr hs).2, ih]

/-- With a carry row, the scan program is the scan `trace` of Sketchpad.Runtime. -/
theorem scanP_trace (f : Stepper) (n : Nat) : ∀ (op : Op) (xs ys : List Cell) (c : Cell),
    out f (scanP n op xs ys c true) = trace f n op xs ys c := by
  induction n with
  | zero => intro op xs ys c; rfl
  | succ n ih =>
    intro op xs ys c
    cases hs : (f ⟨op, hd xs, hd ys, c⟩).next.isScan with
    | false =>
      rw [(scanP_halt f n op xs ys c true hs).1, trace_halt f n op xs ys c hs]
    | true =>
      rw [(scanP_cont f n op xs ys c true hs).1, trace_cont f n op xs ys c hs, nextC_true, ih]

theorem scanP_log_trace (f : Stepper) (n : Nat) (op : Op) (xs ys : List Cell) (c : Cell) :
    log f (scanP n op xs ys c true) = trace f n op xs ys c := by
  rw [scanP_log, scanP_trace]

/-- An invariant of the states of a scan bounds the views it presents. -/
theorem scanP_inv (g : Stepper) (cr : Bool) (S : View → Prop)
    (I : Nat → Op → List Cell → List Cell → Cell → Prop)
    (h1 : ∀ n op xs ys c, I (n + 1) op xs ys c → S ⟨op, hd xs, hd ys, c⟩)
    (h2 : ∀ n op xs ys c, I (n + 1) op xs ys c →
      (g ⟨op, hd xs, hd ys, c⟩).next.isScan = true →
        I n (g ⟨op, hd xs, hd ys, c⟩).next (tl xs) (tl ys) (nextC cr (g ⟨op, hd xs, hd ys, c⟩))) :
    ∀ n op xs ys c, I n op xs ys c → ∀ x ∈ log g (scanP n op xs ys c cr), S x.1 := by
  intro n
  induction n with
  | zero => intro op xs ys c _ x hx; cases hx
  | succ n ih =>
    intro op xs ys c hI x hx
    cases hs : (g ⟨op, hd xs, hd ys, c⟩).next.isScan with
    | false =>
      rw [(scanP_halt g n op xs ys c cr hs).2, List.mem_singleton] at hx
      subst hx
      exact h1 n op xs ys c hI
    | true =>
      rw [(scanP_cont g n op xs ys c cr hs).2] at hx
      rcases List.mem_cons.mp hx with e | e
      · subst e; exact h1 n op xs ys c hI
      · exact ih _ _ _ _ (h2 n op xs ys c hI hs) x e

/-- Two-row scans from the units column with a carry row (`add_rows`, `sub_rows`). -/
def rowsP (op : Op) (xs ys : List Cell) : Prog (List (View × Step)) :=
  scanP (max xs.length ys.length + 3) op xs ys .blank true

theorem rowsP_out (f : Stepper) (op : Op) (xs ys : List Cell) :
    out f (rowsP op xs ys) = rowsTrace f op xs ys := scanP_trace f _ op xs ys .blank

theorem rowsP_log (f : Stepper) (op : Op) (xs ys : List Cell) :
    log f (rowsP op xs ys) = rowsTrace f op xs ys := scanP_log_trace f _ op xs ys .blank

/-- One partial-product row `x · d` (`_partial_row`). -/
def mulRowP (xs : List Cell) (d : Cell) : Prog (List (View × Step)) :=
  scanP (xs.length + 3) .MUL xs (List.replicate (xs.length + 3) d) .blank true

theorem mulRowP_out (f : Stepper) (xs : List Cell) (d : Cell) :
    out f (mulRowP xs d) = mulRowTrace f xs d := scanP_trace f _ .MUL xs _ .blank

theorem mulRowP_log (f : Stepper) (xs : List Cell) (d : Cell) :
    log f (mulRowP xs d) = mulRowTrace f xs d := scanP_log_trace f _ .MUL xs _ .blank

/-- The symbol of a scan's last step (what `compare_rows` and `zero_test` write into their flag
cell); blank for an empty scan. -/
def lastSym : List (View × Step) → Cell
  | [] => .blank
  | [p] => p.2.sym
  | _ :: q :: t => lastSym (q :: t)

theorem lastSym_cons (p : View × Step) (t : List (View × Step)) (h : t ≠ []) :
    lastSym (p :: t) = lastSym t := by
  cases t with
  | nil => exact absurd rfl h
  | cons q t => rfl

theorem lastSym_single (p : View × Step) : lastSym [p] = p.2.sym := rfl

/-! ### The small procedures every larger one uses (proofs in Sketchpad.Compare) -/

/-- `compare_rows`: a `CMP=` scan of two digit rows without a carry row; the flag cell gets the
last step's symbol (`<`, `=` or `>`). -/
def compareP (xs ys : List Cell) : Prog Cell :=
  (scanP (max xs.length ys.length + 3) .CMPEQ xs ys .blank false).bind fun t => done (lastSym t)

/-- `zero_test`: a `ZT` scan of one row; the flag cell gets the last step's symbol (`Z`/`N`). -/
def zeroP (xs : List Cell) : Prog Cell :=
  (scanP (xs.length + 3) .ZT xs [] .blank false).bind fun t => done (lastSym t)

/-- `increment` (`op = INC`: x + 1; `op = ADD2`: x + 2, for the odd numbers of the square
root): the symbols written in the columns the scan visited, then x's own cells above them
(Python shares those cells: a position choice, nothing is written). -/
def incP (op : Op) (xs : List Cell) : Prog (List Cell) :=
  (scanP (xs.length + 3) op xs [] .blank false).bind fun t => done (rowOf t ++ xs.drop t.length)

/-- Whether a cell is the digit 0. -/
def Cell.isD0 : Cell → Bool
  | .d0 => true
  | _ => false

/-- The zero cells at the front of a row dropped. -/
def dropZ : List Cell → List Cell
  | [] => []
  | x :: xs => if x.isD0 = true then dropZ xs else x :: xs

/-- The row without its top zero cells (all of them): the zeros dropped from the front of the
reversed row.  (This form keeps the kernel's recursion shallow on long rows, which the golden
traces' 1,000-digit sums need; `stripTop_cons` is the recursive description.) -/
def stripTop (l : List Cell) : List Cell := (dropZ l.reverse).reverse

theorem Cell.isD0_iff (x : Cell) : x.isD0 = true ↔ x = .d0 := by cases x <;> decide

theorem dropZ_snoc : ∀ (l : List Cell) (x : Cell),
    dropZ (l ++ [x]) = if dropZ l = [] then dropZ [x] else dropZ l ++ [x]
  | [], x => (if_pos rfl).symm
  | y :: ys, x => by
    show (if y.isD0 = true then dropZ (ys ++ [x]) else y :: (ys ++ [x])) =
      if (if y.isD0 = true then dropZ ys else y :: ys) = [] then dropZ [x]
      else (if y.isD0 = true then dropZ ys else y :: ys) ++ [x]
    by_cases h : y.isD0 = true
    · rw [if_pos h, if_pos h]; exact dropZ_snoc ys x
    · rw [if_neg h, if_neg h, if_neg (List.cons_ne_nil _ _)]; rfl

theorem stripTop_nil : stripTop [] = [] := rfl

theorem stripTop_cons (x : Cell) (xs : List Cell) :
    stripTop (x :: xs) = if stripTop xs = [] ∧ x = .d0 then [] else x :: stripTop xs := by
  unfold stripTop
  rw [List.reverse_cons, dropZ_snoc]
  by_cases h : dropZ xs.reverse = []
  · rw [if_pos h, h]
    by_cases hx : x = .d0
    · subst hx; exact (if_pos ⟨rfl, rfl⟩).symm
    · have hx' : ¬ (x.isD0 = true) := fun h' => hx ((Cell.isD0_iff x).1 h')
      show (if x.isD0 = true then dropZ [] else [x]).reverse = _
      rw [if_neg hx', if_neg (fun c => hx c.2)]
      rfl
  · have hne : (dropZ xs.reverse).reverse ≠ [] := fun e => h (by
      rw [← List.reverse_reverse (dropZ xs.reverse), e]; rfl)
    rw [if_neg h, if_neg (fun c => hne c.1), List.reverse_append]
    rfl

/-- `procedures.canonical` on a row without gaps: drop the top zero cells, keeping one cell. -/
def canon : List Cell → List Cell
  | [] => []
  | x :: xs => x :: stripTop xs

/-! ### Programs in lock step (`together`: the rows of a product)

`together` runs generators side by side; in the sequential mode each asks one view per round,
and a round's views form one batch.  As sequential asks (what the sequential mode writes, in
order), a round is `roundP` and the rounds `roundsP`: each program gets its own steps and returns
what it returns alone (`rounds_run`). -/

section Rounds

variable {γ : Type}

/-- The views the pending programs of a round ask. -/
def pend : List (Prog γ) → List View
  | [] => []
  | .done _ :: ps => pend ps
  | .ask v _ :: ps => v :: pend ps

/-- Each pending program continued with its view's step. -/
def advance (g : Stepper) : List (Prog γ) → List (Prog γ)
  | [] => []
  | .done a :: ps => .done a :: advance g ps
  | .ask v k :: ps => k (g v) :: advance g ps

/-- One round as sequential asks, in the order of the batch. -/
def roundP : List (Prog γ) → Prog (List (Prog γ))
  | [] => Prog.done []
  | .done a :: ps => (roundP ps).bind fun r => Prog.done (.done a :: r)
  | .ask v k :: ps => Prog.ask v fun s => (roundP ps).bind fun r => Prog.done (k s :: r)

/-- The rounds flattened: what the sequential mode writes, in order. -/
def roundsP : Nat → List (Prog γ) → Prog (List (Prog γ))
  | 0, ps => Prog.done ps
  | n + 1, ps => if pend ps = [] then Prog.done ps else (roundP ps).bind (roundsP n)

/-- The result of a program that is done (`d` for one that is not). -/
def Prog.resD (d : γ) : Prog γ → γ
  | .done a => a
  | .ask _ _ => d


theorem out_roundP (f : Stepper) : ∀ ps : List (Prog γ), out f (roundP ps) = advance f ps
  | [] => rfl
  | .done a :: ps => by
    show out f ((roundP ps).bind fun r => Prog.done (.done a :: r)) = .done a :: advance f ps
    rw [out_bind, out_roundP f ps]; rfl
  | .ask v k :: ps => by
    show out f ((roundP ps).bind fun r => Prog.done (k (f v) :: r)) = k (f v) :: advance f ps
    rw [out_bind, out_roundP f ps]; rfl

theorem log_roundP (f : Stepper) : ∀ ps : List (Prog γ), log f (roundP ps) = (pend ps).map fun v => (v, f v)
  | [] => rfl
  | .done a :: ps => by
    show log f ((roundP ps).bind fun r => Prog.done (.done a :: r)) = (pend ps).map _
    rw [log_bind, log_roundP f ps, log_done, List.append_nil]
  | .ask v k :: ps => by
    show (v, f v) :: log f ((roundP ps).bind fun r => Prog.done (k (f v) :: r)) = (v, f v) :: (pend ps).map _
    rw [log_bind, log_roundP f ps, log_done, List.append_nil]

theorem out_advance (f : Stepper) : ∀ ps : List (Prog γ), (advance f ps).map (out f) = ps.map (out f)
  | [] => rfl
  | .done a :: ps => by
    show out f (.done a) :: (advance f ps).map (out f) = out f (.done a) :: ps.map (out f)
    rw [out_advance f ps]
  | .ask v k :: ps => by
    show out f (k (f v)) :: (advance f ps).map (out f) = out f (.ask v k) :: ps.map (out f)
    rw [out_advance f ps]; rfl

theorem len_advance (f : Stepper) (n : Nat) : ∀ ps : List (Prog γ), (∀ p ∈ ps, (log f p).length ≤ n + 1) →
    ∀ q ∈ advance f ps, (log f q).length ≤ n
  | [], _ => fun q hq => by cases hq
  | .done a :: ps, h => by
    intro q hq
    rcases List.mem_cons.mp hq with e | e
    · subst e; exact Nat.zero_le _
    · exact len_advance f n ps (fun p hp => h p (List.mem_cons_of_mem _ hp)) q e
  | .ask v k :: ps, h => by
    intro q hq
    rcases List.mem_cons.mp hq with e | e
    · subst e
      have := h (.ask v k) (List.Mem.head _)
      rw [log_ask, List.length_cons] at this
      omega
    · exact len_advance f n ps (fun p hp => h p (List.mem_cons_of_mem _ hp)) q e

theorem mem_round (f : Stepper) (x : View × Step) : ∀ ps : List (Prog γ),
    (x ∈ (pend ps).map (fun v => (v, f v)) ∨ ∃ q ∈ advance f ps, x ∈ log f q) ↔ ∃ p ∈ ps, x ∈ log f p
  | [] => by simp [pend, advance]
  | .done a :: ps => by
    have ih := mem_round f x ps
    constructor
    · intro h
      rcases h with h | ⟨q, hq, hx⟩
      · obtain ⟨p, hp, hx⟩ := ih.mp (Or.inl h)
        exact ⟨p, List.mem_cons_of_mem _ hp, hx⟩
      · rcases List.mem_cons.mp hq with e | e
        · subst e; cases hx
        · obtain ⟨p, hp, hx'⟩ := ih.mp (Or.inr ⟨q, e, hx⟩)
          exact ⟨p, List.mem_cons_of_mem _ hp, hx'⟩
    · intro ⟨p, hp, hx⟩
      rcases List.mem_cons.mp hp with e | e
      · subst e; cases hx
      · rcases ih.mpr ⟨p, e, hx⟩ with h | ⟨q, hq, hx'⟩
        · exact Or.inl h
        · exact Or.inr ⟨q, List.mem_cons_of_mem _ hq, hx'⟩
  | .ask v k :: ps => by
    have ih := mem_round f x ps
    constructor
    · intro h
      rcases h with h | ⟨q, hq, hx⟩
      · rcases List.mem_cons.mp h with e | e
        · exact ⟨.ask v k, List.Mem.head _, by rw [log_ask, e]; exact List.Mem.head _⟩
        · obtain ⟨p, hp, hx⟩ := ih.mp (Or.inl e)
          exact ⟨p, List.mem_cons_of_mem _ hp, hx⟩
      · rcases List.mem_cons.mp hq with e | e
        · subst e
          exact ⟨.ask v k, List.Mem.head _, by rw [log_ask]; exact List.Mem.tail _ hx⟩
        · obtain ⟨p, hp, hx'⟩ := ih.mp (Or.inr ⟨q, e, hx⟩)
          exact ⟨p, List.mem_cons_of_mem _ hp, hx'⟩
    · intro ⟨p, hp, hx⟩
      rcases List.mem_cons.mp hp with e | e
      · subst e
        rw [log_ask] at hx
        rcases List.mem_cons.mp hx with e' | e'
        · exact Or.inl (by rw [e']; exact List.Mem.head _)
        · exact Or.inr ⟨k (f v), List.Mem.head _, e'⟩
      · rcases ih.mpr ⟨p, e, hx⟩ with h | ⟨q, hq, hx'⟩
        · exact Or.inl (List.Mem.tail _ h)
        · exact Or.inr ⟨q, List.mem_cons_of_mem _ hq, hx'⟩

theorem pend_nil (f : Stepper) (d : γ) : ∀ ps : List (Prog γ), pend ps = [] →
    ps.map (Prog.resD d) = ps.map (out f) ∧ ∀ p ∈ ps, log f p = []
  | [], _ => ⟨rfl, fun p hp => by cases hp⟩
  | .done a :: ps, h => by
    obtain ⟨h1, h2⟩ := pend_nil f d ps h
    refine ⟨?_, ?_⟩
    · show a :: ps.map (Prog.resD d) = a :: ps.map (out f)
      rw [h1]
    · intro p hp
      rcases List.mem_cons.mp hp with e | e
      · subst e; rfl
      · exact h2 p e
  | .ask v k :: ps, h => absurd h (List.cons_ne_nil _ _)

theorem log_nil_done (f : Stepper) : ∀ p : Prog γ, log f p = [] → ∃ a, p = .done a
  | .done a, _ => ⟨a, rfl⟩
  | .ask v k, h => by rw [log_ask] at h; cases h

/-- **Lock step is transparent**: with enough rounds, every program returns what it returns
alone, and the interleaved asks are exactly the views each program presents alone. -/
theorem rounds_run (f : Stepper) (d : γ) : ∀ (n : Nat) (ps : List (Prog γ)),
    (∀ p ∈ ps, (log f p).length ≤ n) →
    (out f (roundsP n ps)).map (Prog.resD d) = ps.map (out f) ∧
      ∀ x, x ∈ log f (roundsP n ps) ↔ ∃ p ∈ ps, x ∈ log f p
  | 0, ps, h => by
    have hall : ∀ p ∈ ps, log f p = [] := fun p hp => List.eq_nil_of_length_eq_zero (Nat.le_zero.mp (h p hp))
    have hres : ps.map (Prog.resD d) = ps.map (out f) := by
      apply List.map_congr_left
      intro p hp
      obtain ⟨a, rfl⟩ := log_nil_done f p (hall p hp)
      rfl
    refine ⟨hres, fun x => ⟨fun hx => (by cases hx), fun ⟨p, hp, hx⟩ => (by rw [hall p hp] at hx; cases hx)⟩⟩
  | n + 1, ps, h => by
    by_cases hp : pend ps = []
    · have e : roundsP (n + 1) ps = Prog.done ps := if_pos hp
      obtain ⟨h1, h2⟩ := pend_nil f d ps hp
      rw [e]
      exact ⟨h1, fun x => ⟨fun hx => (by cases hx), fun ⟨p, hp', hx⟩ => (by rw [h2 p hp'] at hx; cases hx)⟩⟩
    · have e : roundsP (n + 1) ps = (roundP ps).bind (roundsP n) := if_neg hp
      obtain ⟨i1, i2⟩ := rounds_run f d n (advance f ps) (len_advance f n ps h)
      rw [e, out_bind, log_bind, out_roundP, log_roundP]
      refine ⟨by rw [i1, out_advance], fun x => ?_⟩
      rw [List.mem_append, i2]
      exact mem_round f x ps

end Rounds

/-! ### Signed numbers and exact procedures (the interface the evaluator composes) -/

/-- A signed number on the sheet (`procedures.Num`): its sign cell and its digit row, units
first. -/
abbrev SNum := Cell × List Cell

/-- A well-formed signed number: sign `+` or `-`, digits (any length; leading zeros allowed). -/
def SNum.WF (n : SNum) : Prop := (n.1 = .plus ∨ n.1 = .minus) ∧ Digits n.2

/-- The integer a signed number denotes (`Num.value`). -/
def SNum.val (n : SNum) : Int := if n.1 = .minus then -((rowVal n.2 : Nat) : Int) else ((rowVal n.2 : Nat) : Int)

/-- A one-argument procedure on signed numbers, proven exact: the reference runs on its domain
present only views of `views` (`closed`) and each view of `views` is presented by one of them
(`wit`); the reference returns a well-formed number denoting `sem` of the argument. -/
structure ExactProc1 where
  prog : SNum → Prog SNum
  dom : SNum → Prop
  views : View → Prop
  sem : Int → Int
  closed : ∀ a, a.WF → dom a → ∀ x ∈ log refStep (prog a), views x.1
  wit : ∀ v, views v → ∃ a, a.WF ∧ dom a ∧ v ∈ Prog.views refStep (prog a)
  wf : ∀ a, a.WF → dom a → (out refStep (prog a)).WF
  correct : ∀ a, a.WF → dom a → (out refStep (prog a)).val = sem a.val

/-- A two-argument procedure on signed numbers, proven exact (as `ExactProc1`). -/
structure ExactProc2 where
  prog : SNum → SNum → Prog SNum
  dom : SNum → SNum → Prop
  views : View → Prop
  sem : Int → Int → Int
  closed : ∀ a b, a.WF → b.WF → dom a b → ∀ x ∈ log refStep (prog a b), views x.1
  wit : ∀ v, views v → ∃ a b, a.WF ∧ b.WF ∧ dom a b ∧ v ∈ Prog.views refStep (prog a b)
  wf : ∀ a b, a.WF → b.WF → dom a b → (out refStep (prog a b)).WF
  correct : ∀ a b, a.WF → b.WF → dom a b → (out refStep (prog a b)).val = sem a.val b.val

end Sketchpad
