/-
  Sketchpad.Runtime — the fixed runtime as a function of an arbitrary stepper
  `f : View → Step` (mirrors `scan` in `sketchpad/runtime.py`).

  A column scan presents `(op, x_i, y_i, carry_i)`, writes the step's symbol to `out[i]` and its
  flag to `carry[i+1]`, and goes on with the step's next operation while that is a scan
  operation.  It stops after the step that names a control word, or — as Python raises a
  `StepperFault` — after `limit + 1` columns, `limit = max(width x, width y) + 2`.

  The run of a scan is recorded as the list of (view, step) pairs in column order (its
  *trace*).  Everything the runtime writes is a function of the steps: `out` is the list of the
  steps' symbols (a blank symbol is no write), `carry` the list of their flags, shifted by one
  column, and the scan returns its last step.  So two runs write the same sheet and return the
  same step exactly when their step lists `(trace …).map Prod.snd` are equal.
-/
module

public import Sketchpad.Basic

@[expose] public noncomputable section

namespace Sketchpad

/-- One column scan: `trace f n op xs ys c` runs at most `n` columns from the current one,
with rows `xs`, `ys` (units first; blank past their ends) and carry cell `c`. -/
def trace (f : Stepper) : Nat → Op → List Cell → List Cell → Cell → List (View × Step)
  | 0, _, _, _, _ => []
  | n + 1, op, xs, ys, c =>
    if (f ⟨op, hd xs, hd ys, c⟩).next.isScan then
      (⟨op, hd xs, hd ys, c⟩, f ⟨op, hd xs, hd ys, c⟩) ::
        trace f n (f ⟨op, hd xs, hd ys, c⟩).next (tl xs) (tl ys) (f ⟨op, hd xs, hd ys, c⟩).flag
    else [(⟨op, hd xs, hd ys, c⟩, f ⟨op, hd xs, hd ys, c⟩)]

/-! ### Unfolding a scan by one column -/

theorem trace_zero (f : Stepper) (op : Op) (xs ys : List Cell) (c : Cell) :
    trace f 0 op xs ys c = [] := rfl

theorem trace_cont (f : Stepper) (n : Nat) (op : Op) (xs ys : List Cell) (c : Cell)
    (h : (f ⟨op, hd xs, hd ys, c⟩).next.isScan = true) :
    trace f (n + 1) op xs ys c =
      (⟨op, hd xs, hd ys, c⟩, f ⟨op, hd xs, hd ys, c⟩) ::
        trace f n (f ⟨op, hd xs, hd ys, c⟩).next (tl xs) (tl ys)
          (f ⟨op, hd xs, hd ys, c⟩).flag := by
  first
    | rw [trace, if_pos h]
    | simp only [trace, h, if_pos]
    | simp [trace, h]

theorem trace_halt (f : Stepper) (n : Nat) (op : Op) (xs ys : List Cell) (c : Cell)
    (h : (f ⟨op, hd xs, hd ys, c⟩).next.isScan = false) :
    trace f (n + 1) op xs ys c = [(⟨op, hd xs, hd ys, c⟩, f ⟨op, hd xs, hd ys, c⟩)] := by
  have h' : ¬ ((f ⟨op, hd xs, hd ys, c⟩).next.isScan = true) := by rw [h]; decide
  first
    | rw [trace, if_neg h']
    | simp [trace, h]

/-- One column, with every piece named (the form the proofs rewrite with). -/
theorem trace_step (f : Stepper) (n : Nat) (op : Op) (xs ys : List Cell) (c : Cell)
    (v : View) (s : Step) (op' : Op) (xs' ys' : List Cell) (c' : Cell)
    (hv : (⟨op, hd xs, hd ys, c⟩ : View) = v) (hf : f v = s) (hn : s.next = op')
    (hsc : op'.isScan = true) (hxs : tl xs = xs') (hys : tl ys = ys') (hc : s.flag = c') :
    trace f (n + 1) op xs ys c = (v, s) :: trace f n op' xs' ys' c' := by
  subst hv hf hn hxs hys hc
  exact trace_cont f n op xs ys c hsc

/-- The last column of a scan. -/
theorem trace_last (f : Stepper) (n : Nat) (op : Op) (xs ys : List Cell) (c : Cell)
    (v : View) (s : Step)
    (hv : (⟨op, hd xs, hd ys, c⟩ : View) = v) (hf : f v = s) (hsc : s.next.isScan = false) :
    trace f (n + 1) op xs ys c = [(v, s)] := by
  subst hv hf
  exact trace_halt f n op xs ys c hsc

/-! ### General facts about scans, for every stepper -/

/-- Every recorded step is the stepper's answer to the recorded view. -/
theorem trace_snd (f : Stepper) (n : Nat) : ∀ (op : Op) (xs ys : List Cell) (c : Cell),
    ∀ p ∈ trace f n op xs ys c, p.2 = f p.1 := by
  induction n with
  | zero =>
    intro op xs ys c p hp
    rw [trace_zero] at hp
    cases hp
  | succ n ih =>
    intro op xs ys c p hp
    cases hs : (f ⟨op, hd xs, hd ys, c⟩).next.isScan with
    | false =>
      rw [trace_halt f n op xs ys c hs] at hp
      rw [List.mem_singleton] at hp
      subst hp
      rfl
    | true =>
      rw [trace_cont f n op xs ys c hs] at hp
      rcases List.mem_cons.mp hp with h | h
      · subst h
        rfl
      · exact ih _ _ _ _ p h

/-- A scan depends on the stepper only through the views it presents: two steppers that
agree on those views produce the same run. -/
theorem trace_congr (f g : Stepper) (n : Nat) : ∀ (op : Op) (xs ys : List Cell) (c : Cell),
    (∀ p ∈ trace g n op xs ys c, f p.1 = g p.1) →
      trace f n op xs ys c = trace g n op xs ys c := by
  induction n with
  | zero => intro op xs ys c _; rfl
  | succ n ih =>
    intro op xs ys c h
    cases hs : (g ⟨op, hd xs, hd ys, c⟩).next.isScan with
    | false =>
      have hv : f ⟨op, hd xs, hd ys, c⟩ = g ⟨op, hd xs, hd ys, c⟩ := by
        apply h (⟨op, hd xs, hd ys, c⟩, g ⟨op, hd xs, hd ys, c⟩)
        rw [trace_halt g n op xs ys c hs]
        exact List.Mem.head _
      have hs' : (f ⟨op, hd xs, hd ys, c⟩).next.isScan = false := by rw [hv]; exact hs
      rw [trace_halt f n op xs ys c hs', trace_halt g n op xs ys c hs, hv]
    | true =>
      have hv : f ⟨op, hd xs, hd ys, c⟩ = g ⟨op, hd xs, hd ys, c⟩ := by
        apply h (⟨op, hd xs, hd ys, c⟩, g ⟨op, hd xs, hd ys, c⟩)
        rw [trace_cont g n op xs ys c hs]
        exact List.Mem.head _
      have hs' : (f ⟨op, hd xs, hd ys, c⟩).next.isScan = true := by rw [hv]; exact hs
      have ht : trace f n (g ⟨op, hd xs, hd ys, c⟩).next (tl xs) (tl ys)
            (g ⟨op, hd xs, hd ys, c⟩).flag =
          trace g n (g ⟨op, hd xs, hd ys, c⟩).next (tl xs) (tl ys)
            (g ⟨op, hd xs, hd ys, c⟩).flag := by
        apply ih
        intro p hp
        apply h p
        rw [trace_cont g n op xs ys c hs]
        exact List.Mem.tail _ hp
      rw [trace_cont f n op xs ys c hs', trace_cont g n op xs ys c hs, hv, ht]

/-- The first step of a scan of at least one column. -/
theorem trace_head (f : Stepper) (n : Nat) (op : Op) (xs ys : List Cell) (c : Cell) :
    ((trace f (n + 1) op xs ys c).map Prod.snd).head? = some (f ⟨op, hd xs, hd ys, c⟩) := by
  cases hs : (f ⟨op, hd xs, hd ys, c⟩).next.isScan with
  | false => rw [trace_halt f n op xs ys c hs]; try rfl
  | true => rw [trace_cont f n op xs ys c hs]; try rfl

/-- Conversely, two runs that write the same steps had steppers agreeing on every view the
runs presented (the views are read off the sheet, which the equal steps wrote alike). -/
theorem trace_agree_of_eq (f g : Stepper) (n : Nat) : ∀ (op : Op) (xs ys : List Cell) (c : Cell),
    (trace f n op xs ys c).map Prod.snd = (trace g n op xs ys c).map Prod.snd →
      ∀ p ∈ trace g n op xs ys c, f p.1 = g p.1 := by
  induction n with
  | zero =>
    intro op xs ys c _ p hp
    rw [trace_zero] at hp
    cases hp
  | succ n ih =>
    intro op xs ys c h p hp
    have hv : f ⟨op, hd xs, hd ys, c⟩ = g ⟨op, hd xs, hd ys, c⟩ := by
      have e := congrArg List.head? h
      rw [trace_head f n op xs ys c, trace_head g n op xs ys c] at e
      exact Option.some.inj e
    cases hs : (g ⟨op, hd xs, hd ys, c⟩).next.isScan with
    | false =>
      rw [trace_halt g n op xs ys c hs] at hp
      rw [List.mem_singleton] at hp
      subst hp
      exact hv
    | true =>
      have hs' : (f ⟨op, hd xs, hd ys, c⟩).next.isScan = true := by rw [hv]; exact hs
      rw [trace_cont g n op xs ys c hs] at hp
      rw [trace_cont f n op xs ys c hs', trace_cont g n op xs ys c hs] at h
      simp only [List.map_cons] at h
      have htail := (List.cons.inj h).2
      rw [hv] at htail
      rcases List.mem_cons.mp hp with e | e
      · subst e
        exact hv
      · exact ih _ _ _ _ htail p e

/-- An invariant of the states of a scan bounds the views it presents. -/
theorem trace_inv (g : Stepper) (S : View → Prop)
    (I : Nat → Op → List Cell → List Cell → Cell → Prop)
    (h1 : ∀ n op xs ys c, I (n + 1) op xs ys c → S ⟨op, hd xs, hd ys, c⟩)
    (h2 : ∀ n op xs ys c, I (n + 1) op xs ys c →
      (g ⟨op, hd xs, hd ys, c⟩).next.isScan = true →
        I n (g ⟨op, hd xs, hd ys, c⟩).next (tl xs) (tl ys) (g ⟨op, hd xs, hd ys, c⟩).flag) :
    ∀ n op xs ys c, I n op xs ys c → ∀ p ∈ trace g n op xs ys c, S p.1 := by
  intro n
  induction n with
  | zero =>
    intro op xs ys c _ p hp
    rw [trace_zero] at hp
    cases hp
  | succ n ih =>
    intro op xs ys c hI p hp
    cases hs : (g ⟨op, hd xs, hd ys, c⟩).next.isScan with
    | false =>
      rw [trace_halt g n op xs ys c hs] at hp
      rw [List.mem_singleton] at hp
      subst hp
      exact h1 n op xs ys c hI
    | true =>
      rw [trace_cont g n op xs ys c hs] at hp
      rcases List.mem_cons.mp hp with e | e
      · subst e
        exact h1 n op xs ys c hI
      · exact ih _ _ _ _ (h2 n op xs ys c hI hs) p e

/-! ### What a scan writes -/

/-- The result row of a scan: the non-blank symbols the steps wrote, column by column (Python
writes a step's symbol only when it is not blank; in every run of the reference stepper the
only blank symbol is the final halting step's). -/
def rowOf : List (View × Step) → List Cell
  | [] => []
  | p :: t => if p.2.sym = .blank then rowOf t else p.2.sym :: rowOf t

theorem rowOf_nil : rowOf [] = [] := rfl

theorem rowOf_cons_of_ne (p : View × Step) (t : List (View × Step)) (h : p.2.sym ≠ .blank) :
    rowOf (p :: t) = p.2.sym :: rowOf t := by
  first
    | rw [rowOf, if_neg h]
    | simp [rowOf, h]

theorem rowOf_cons_of_eq (p : View × Step) (t : List (View × Step)) (h : p.2.sym = .blank) :
    rowOf (p :: t) = rowOf t := by
  first
    | rw [rowOf, if_pos h]
    | simp [rowOf, h]

theorem rowOf_cons_step (v : View) (s : Step) (t : List (View × Step)) (h : s.sym ≠ .blank) :
    rowOf ((v, s) :: t) = s.sym :: rowOf t :=
  rowOf_cons_of_ne (v, s) t h

theorem rowOf_digit_mod (v : View) (m : Nat) (fl : Cell) (o : Op) (t : List (View × Step)) :
    rowOf ((v, ⟨Cell.digit (m % 10), fl, o⟩) :: t) = Cell.digit (m % 10) :: rowOf t :=
  rowOf_cons_of_ne (v, ⟨Cell.digit (m % 10), fl, o⟩) t (Cell.digit_mod_ne_blank m)

/-- A row written only with digits (or blanks) is a digit row. -/
theorem rowOf_digits : ∀ (t : List (View × Step)), (∀ p ∈ t, p.2.sym ∈ db) → Digits (rowOf t)
  | [], _ => digits_nil
  | p :: t, h => by
    have ht : ∀ q ∈ t, q.2.sym ∈ db := fun q hq => h q (List.Mem.tail _ hq)
    by_cases hb : p.2.sym = .blank
    · rw [rowOf_cons_of_eq p t hb]
      exact rowOf_digits t ht
    · rw [rowOf_cons_of_ne p t hb]
      exact digits_cons_intro (Cell.isDigit_of_mem_db _ (h p (List.Mem.head _)) hb)
        (rowOf_digits t ht)

/-- The operation named by the last step of a scan (`o` for an empty scan). -/
def lastNext : List (View × Step) → Op → Op
  | [], o => o
  | p :: t, _ => lastNext t p.2.next

theorem lastNext_cons (v : View) (s : Step) (t : List (View × Step)) (o : Op) :
    lastNext ((v, s) :: t) o = lastNext t s.next := rfl

/-- The flag of the last step of a scan (`c` for an empty scan): a subtraction's final borrow. -/
def lastFlag : List (View × Step) → Cell → Cell
  | [], c => c
  | p :: t, _ => lastFlag t p.2.flag

theorem lastFlag_cons (v : View) (s : Step) (t : List (View × Step)) (c : Cell) :
    lastFlag ((v, s) :: t) c = lastFlag t s.flag := rfl

/-! ### The procedures of the Lean model -/

/-- A two-row column scan from the units column with no carry yet, as `add_rows` / `sub_rows`
call `scan` (limit `max(width x, width y) + 2`, i.e. at most that plus one columns). -/
def rowsTrace (f : Stepper) (op : Op) (xs ys : List Cell) : List (View × Step) :=
  trace f (max xs.length ys.length + 3) op xs ys .blank

/-- Addition of two digit rows (`add_rows`). -/
def addTrace (f : Stepper) (xs ys : List Cell) : List (View × Step) := rowsTrace f .ADD xs ys

/-- Subtraction of two digit rows (`sub_rows`); the final borrow is the last step's flag. -/
def subTrace (f : Stepper) (xs ys : List Cell) : List (View × Step) := rowsTrace f .SUB xs ys

/-- The steps of a two-row scan: everything it writes (see the header). -/
def rowsRun (f : Stepper) (op : Op) (xs ys : List Cell) : List Step :=
  (rowsTrace f op xs ys).map Prod.snd

/-- One partial-product row `x * d` (`_partial_row`: the multiplier digit `d` is the fixed
second cell of every view; limit `width x + 2`). -/
def mulRowTrace (f : Stepper) (xs : List Cell) (d : Cell) : List (View × Step) :=
  trace f (xs.length + 3) .MUL xs (List.replicate (xs.length + 3) d) .blank

def mulRowRun (f : Stepper) (xs : List Cell) (d : Cell) : List Step :=
  (mulRowTrace f xs d).map Prod.snd

/-- A row shifted up by `j` columns (the low columns hold zero digits). -/
def shiftRow (j : Nat) (r : List Cell) : List Cell := List.replicate j Cell.d0 ++ r

/-- Long multiplication, after the first partial row: for each further digit `d` of the
multiplier (column `j`), compute the row `x * d` and add it, shifted by `j`, to the running
total.  Returns the total and every (view, step) of every scan, in order. -/
def mulGo (f : Stepper) (xs : List Cell) : Nat → List Cell → List Cell →
    List Cell × List (View × Step)
  | _, acc, [] => (acc, [])
  | j, acc, d :: ds =>
    ((mulGo f xs (j + 1) (rowOf (addTrace f acc (shiftRow j (rowOf (mulRowTrace f xs d))))) ds).1,
     mulRowTrace f xs d ++ addTrace f acc (shiftRow j (rowOf (mulRowTrace f xs d))) ++
       (mulGo f xs (j + 1) (rowOf (addTrace f acc (shiftRow j (rowOf (mulRowTrace f xs d))))) ds).2)

/-- Long multiplication `x * y` (`product_rows`): the first partial row is the initial total. -/
def mulRun (f : Stepper) (xs : List Cell) : List Cell → List Cell × List (View × Step)
  | [] => ([], [])
  | d :: ds => ((mulGo f xs 1 (rowOf (mulRowTrace f xs d)) ds).1,
                mulRowTrace f xs d ++ (mulGo f xs 1 (rowOf (mulRowTrace f xs d)) ds).2)

end Sketchpad
