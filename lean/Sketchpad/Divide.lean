/-
  Sketchpad.Divide — long division (`divide_rows`, `_quotient_digit`) and the signed floor
  division (`signed_divmod`) of `sketchpad/procedures.py`, sequential mode, as programs of the
  driver (Sketchpad/Driver.lean) over an arbitrary stepper.

  * one quotient digit (`qdigP`): subtract the divisor until a subtraction borrows; after each
    trial a `DQ` view reads the final borrow and the count so far, and its step writes the next
    count (`SUB`: try again) or declares the digit final (`HALT`); at most 10 trials, as Python;
  * long division (`divP`): for each quotient position, from the top, bring down one digit of
    the dividend in front of the remainder so far (`rem[:lb]`) and count one digit;
  * signed floor division (`divmodP`): zero test of the divisor, the division of the
    magnitudes, zero test of the remainder, a `SGN/` view (signs and that flag); `ADJ` adds 1 to
    the quotient and replaces the remainder by `|b| − r`.

  Correctness: `div_correct` (quotient `a / b`, remainder `a % b`), `divmod_correct` (`Int.fdiv`,
  `Int.fmod`, Python's `//` and `%`).  Reductions: `reduction_divide` (260 views: the 241 `SUB`
  views of `subDiv` and the 19 `DQ` views) and `reduction_divmod` (291 views).  The divisor is a
  digit row whose top digit is not 0 (`topNZ`: canonical and non-zero, as every divisor Python
  passes; a zero divisor is an `InputError` there).
-/
module

public import Sketchpad.Signed
public import Sketchpad.TableDiv

@[expose] public noncomputable section

set_option autoImplicit false

set_option maxRecDepth 100000
set_option maxHeartbeats 0

namespace Sketchpad

open Prog

theorem digits_single (c : Cell) (h : c.isDigit = true) : Digits [c] := digits_cons_intro h digits_nil

/-- The top digit of a non-empty row is not 0 (a canonical, non-zero divisor). -/
def topNZ : List Cell → Bool
  | [] => false
  | [x] => !decide (x = .d0)
  | _ :: y :: t => topNZ (y :: t)

theorem Cell.one_le_of_ne_d0 (x : Cell) : x.isDigit = true → x ≠ .d0 → 1 ≤ x.val := by
  cases x <;> decide

/-- A divisor of `L` cells with a non-zero top digit is at least `10^(L-1)`. -/
theorem topNZ_ge : ∀ l : List Cell, Digits l → topNZ l = true → 10 ^ (l.length - 1) ≤ rowVal l
  | [], _, h => absurd h (by decide)
  | [x], hd, h => by
    have hx : ¬ (x = .d0) := by
      intro e; subst e; exact absurd h (by decide)
    have := Cell.one_le_of_ne_d0 x (digits_cons hd).1 hx
    show 10 ^ 0 ≤ x.val + 10 * 0
    rw [Nat.pow_zero]
    omega
  | x :: y :: t, hd, h => by
    have ih := topNZ_ge (y :: t) (digits_cons hd).2 h
    show 10 ^ ((y :: t).length + 1 - 1) ≤ x.val + 10 * rowVal (y :: t)
    have e : (y :: t).length + 1 - 1 = ((y :: t).length - 1) + 1 := by
      show t.length + 1 + 1 - 1 = t.length + 1 - 1 + 1
      omega
    rw [e, Nat.pow_succ]
    omega

theorem topNZ_pos (l : List Cell) (hd : Digits l) (h : topNZ l = true) : 0 < rowVal l := by
  have := topNZ_ge l hd h
  have := pow10_pos (l.length - 1)
  omega

/-! ### The program -/

/-- After a trial subtraction `t` of the divisor from `r`: a `DQ` view reads the final borrow
and the count so far; `HALT` keeps `r` (the digit is final), else count on from `t`. -/
def qdigK (rec : List Cell → Cell → Prog (Cell × List Cell)) (r : List Cell) (cnt : Cell)
    (t : List (View × Step)) : Prog (Cell × List Cell) :=
  ask ⟨.DQ, lastFlag t .blank, cnt, .blank⟩ fun s =>
    if s.next = .HALT then done (s.sym, r) else rec (rowOf t) s.sym

/-- `_quotient_digit`: at most `n` trials; the result is the digit cell and the last row that
fitted (the remainder).  (Past the trials Python raises; the model stops.) -/
def qdigP (b : List Cell) : Nat → List Cell → Cell → Prog (Cell × List Cell)
  | 0, r, cnt => done (cnt, r)
  | n + 1, r, cnt => (rowsP .SUB r b).bind (qdigK (qdigP b n) r cnt)

/-- The quotient positions from the top: bring down a digit `x` in front of the remainder so
far (cut to the divisor's width, `rem[:lb]`) and count one quotient digit. -/
def divGo (b : List Cell) : List Cell → List Cell → List Cell → Prog (List Cell × List Cell)
  | [], rem, q => done (q, rem)
  | x :: xs, rem, q =>
    (qdigP b 10 (x :: rem.take b.length) .blank).bind fun p => divGo b xs p.2 (p.1 :: q)

/-- `divide_rows` (sequential): the quotient cells and the remainder cells (`rem[:max(lb, 1)]`). -/
def divP (a b : List Cell) : Prog (List Cell × List Cell) :=
  if a.length < b.length then
    (qdigP b 10 a .blank).bind fun p => done ([p.1], p.2.take (max b.length 1))
  else
    (divGo b (a.take (a.length - b.length + 1)).reverse (a.drop (a.length - b.length + 1)) []).bind
      fun p => done (p.1, p.2.take (max b.length 1))

theorem qdigP_succ (f : Stepper) (b : List Cell) (n : Nat) (r : List Cell) (cnt : Cell) :
    out f (qdigP b (n + 1) r cnt) = out f (qdigK (qdigP b n) r cnt (subTrace f r b)) ∧
    log f (qdigP b (n + 1) r cnt) = subTrace f r b ++ log f (qdigK (qdigP b n) r cnt (subTrace f r b)) := by
  have e : qdigP b (n + 1) r cnt = (rowsP .SUB r b).bind (qdigK (qdigP b n) r cnt) := rfl
  rw [e, out_bind, log_bind, rowsP_out, rowsP_log]
  exact ⟨rfl, rfl⟩

theorem qdigK_halt (f : Stepper) (rec : List Cell → Cell → Prog (Cell × List Cell)) (r : List Cell)
    (cnt : Cell) (t : List (View × Step)) (v : View) (s : Step)
    (hv : (⟨.DQ, lastFlag t .blank, cnt, .blank⟩ : View) = v) (hs : f v = s) (h : s.next = .HALT) :
    out f (qdigK rec r cnt t) = (s.sym, r) ∧ log f (qdigK rec r cnt t) = [(v, s)] := by
  subst hv hs
  refine ⟨?_, ?_⟩
  · show out f (if (f ⟨.DQ, lastFlag t .blank, cnt, .blank⟩).next = Op.HALT then _ else _) = _
    rw [if_pos h]
    rfl
  · show (_, _) :: log f (if (f ⟨.DQ, lastFlag t .blank, cnt, .blank⟩).next = Op.HALT then _ else _) = _
    rw [if_pos h]
    rfl

theorem qdigK_cont (f : Stepper) (rec : List Cell → Cell → Prog (Cell × List Cell)) (r : List Cell)
    (cnt : Cell) (t : List (View × Step)) (v : View) (s : Step)
    (hv : (⟨.DQ, lastFlag t .blank, cnt, .blank⟩ : View) = v) (hs : f v = s) (h : s.next ≠ .HALT) :
    out f (qdigK rec r cnt t) = out f (rec (rowOf t) s.sym) ∧
    log f (qdigK rec r cnt t) = (v, s) :: log f (rec (rowOf t) s.sym) := by
  subst hv hs
  refine ⟨?_, ?_⟩
  · show out f (if (f ⟨.DQ, lastFlag t .blank, cnt, .blank⟩).next = Op.HALT then _ else _) = _
    rw [if_neg h]
  · show (_, _) :: log f (if (f ⟨.DQ, lastFlag t .blank, cnt, .blank⟩).next = Op.HALT then _ else _) = _
    rw [if_neg h]

theorem divGo_cons (f : Stepper) (b : List Cell) (x : Cell) (xs rem q : List Cell) :
    out f (divGo b (x :: xs) rem q) =
      out f (divGo b xs (out f (qdigP b 10 (x :: rem.take b.length) .blank)).2
        ((out f (qdigP b 10 (x :: rem.take b.length) .blank)).1 :: q)) ∧
    log f (divGo b (x :: xs) rem q) = log f (qdigP b 10 (x :: rem.take b.length) .blank) ++
      log f (divGo b xs (out f (qdigP b 10 (x :: rem.take b.length) .blank)).2
        ((out f (qdigP b 10 (x :: rem.take b.length) .blank)).1 :: q)) :=
  ⟨out_bind f _ _, log_bind f _ _⟩

theorem divP_short (f : Stepper) (a b : List Cell) (h : a.length < b.length) :
    out f (divP a b) = ([(out f (qdigP b 10 a .blank)).1], (out f (qdigP b 10 a .blank)).2.take (max b.length 1)) ∧
    log f (divP a b) = log f (qdigP b 10 a .blank) := by
  unfold divP
  rw [if_pos h, out_bind, log_bind]
  exact ⟨rfl, List.append_nil _⟩

theorem divP_long (f : Stepper) (a b : List Cell) (h : ¬ a.length < b.length) :
    out f (divP a b) =
      ((out f (divGo b (a.take (a.length - b.length + 1)).reverse (a.drop (a.length - b.length + 1)) [])).1,
       (out f (divGo b (a.take (a.length - b.length + 1)).reverse
         (a.drop (a.length - b.length + 1)) [])).2.take (max b.length 1)) ∧
    log f (divP a b) = log f (divGo b (a.take (a.length - b.length + 1)).reverse (a.drop (a.length - b.length + 1)) []) := by
  unfold divP
  rw [if_neg h, out_bind, log_bind]
  exact ⟨rfl, List.append_nil _⟩

/-! ### The finite facts -/

/-- `DQ` after a subtraction that fitted: count one more, try again. -/
theorem dq_fit : ∀ c ∈ List.range 9,
    refStep ⟨.DQ, .blank, Cell.carry c, .blank⟩ = ⟨Cell.carry (c + 1), .blank, .SUB⟩ ∧
    (⟨.DQ, .blank, Cell.carry c, .blank⟩ : View) ∈ V_DQ := by decide +kernel

/-- `DQ` after a subtraction that borrowed: the count is the digit. -/
theorem dq_stop : ∀ c ∈ List.range 10,
    refStep ⟨.DQ, .d1, Cell.carry c, .blank⟩ = ⟨Cell.digit c, .blank, .HALT⟩ ∧
    (⟨.DQ, .d1, Cell.carry c, .blank⟩ : View) ∈ V_DQ := by decide +kernel

/-- The `SUB` views of a trial subtraction: never a 9 past the divisor's end without a borrow. -/
def subDiv (v : View) : Prop := ¬(v.a = .d9 ∧ v.b = .blank ∧ v.c = .blank)

instance : DecidablePred subDiv := fun v =>
  inferInstanceAs (Decidable (¬(v.a = .d9 ∧ v.b = .blank ∧ v.c = .blank)))

/-- The 241 `SUB` views of a long division. -/
def V_SUBDIV : List View := V_SUB.filter fun v => decide (subDiv v)

/-- The 260 views of a long division: `V_SUBDIV`, then the 19 `DQ` views. -/
def V_DIV : List View := V_SUBDIV ++ V_DQ

theorem Cell.val_d9 : Cell.d9.val = 9 := rfl

/-- A trial subtraction from a row `x ≤ 8 + 10·y (+ borrow)` presents only views of `V_SUBDIV`. -/
theorem sub_div_closed (n : Nat) : ∀ (xs ys : List Cell) (c : Cell), Digits xs → Digits ys →
    c ∈ carries → rowVal xs ≤ 8 + 10 * rowVal ys + c.val →
    ∀ p ∈ trace refStep n .SUB xs ys c, p.1 ∈ V_SUBDIV := by
  intro xs ys c hx hy hc hle
  refine trace_inv refStep (fun v => v ∈ V_SUBDIV)
    (fun _ o xs' ys' c' => o = .SUB ∧ Digits xs' ∧ Digits ys' ∧ c' ∈ carries ∧
      rowVal xs' ≤ 8 + 10 * rowVal ys' + c'.val) ?_ ?_ n .SUB xs ys c ⟨rfl, hx, hy, hc, hle⟩
  · intro m o xs' ys' c' hI
    obtain ⟨ho, hx', hy', hc', hle'⟩ := hI
    subst ho
    refine List.mem_filter.mpr ⟨sub_grid_in_V _ (hd_mem_db hx') _ (hd_mem_db hy') c' hc', ?_⟩
    apply decide_eq_true
    show ¬(hd xs' = .d9 ∧ hd ys' = .blank ∧ c' = .blank)
    intro ⟨h9, hb, hcb⟩
    have e := eq_nil_of_hd_blank hy' hb
    subst e hcb
    have h0 : rowVal ([] : List Cell) = 0 := rfl
    have hb0 : Cell.blank.val = 0 := rfl
    have hv := rowVal_hd_tl xs'
    rw [h9, Cell.val_d9] at hv
    omega
  · intro m o xs' ys' c' hI hs
    obtain ⟨ho, hx', hy', hc', hle'⟩ := hI
    subst ho
    by_cases hb : hd xs' = .blank ∧ hd ys' = .blank
    · have h2 : (Step.mk Cell.blank c' Op.HALT).next.isScan = false := rfl
      rw [hb.1, hb.2, sub_top c' hc', h2] at hs
      exact absurd hs (by decide)
    · obtain ⟨hnext, hsym, hflag, hcol⟩ :=
        sub_col (hd xs') (hd_mem_db hx') (hd ys') (hd_mem_db hy') c' hc' hb
      refine ⟨hnext, digits_tl hx', digits_tl hy', hflag, ?_⟩
      have e1 := rowVal_hd_tl xs'
      have e2 := rowVal_hd_tl ys'
      have h9 := Cell.val_le (refStep ⟨.SUB, hd xs', hd ys', c'⟩).sym
      have h9' := Cell.val_le (hd ys')
      have hc1 := carries_val_le hc'
      have hf1 := carries_val_le hflag
      omega

/-! ### One quotient digit: the reference run -/

theorem mul_ge_of_le (c k B : Nat) (h : k ≤ c) : k * B ≤ c * B := Nat.mul_le_mul_right B h

/-- **One quotient digit.** With a count `c` so far, a row `r` and `cur = r + c·B < 10·B`
(`B` the divisor), enough trials left: the reference writes the digit `cur / B`, keeps the
remainder `cur % B`, and presents only views of `V_DIV`. -/
theorem qdig_ref (b : List Cell) (hb : Digits b) (hB : 0 < rowVal b) (n : Nat) :
    ∀ (r : List Cell) (c : Nat), Digits r → 10 ≤ n + c → rowVal r + c * rowVal b < 10 * rowVal b →
      (out refStep (qdigP b n r (Cell.carry c))).1 = Cell.digit ((rowVal r + c * rowVal b) / rowVal b) ∧
      rowVal (out refStep (qdigP b n r (Cell.carry c))).2 = (rowVal r + c * rowVal b) % rowVal b ∧
      Digits (out refStep (qdigP b n r (Cell.carry c))).2 ∧
      ∀ x ∈ log refStep (qdigP b n r (Cell.carry c)), x.1 ∈ V_DIV := by
  induction n with
  | zero =>
    intro r c _ h10 hlt
    have := mul_ge_of_le c 10 (rowVal b) (by omega)
    omega
  | succ n ih =>
    intro r c hr h10 hlt
    obtain ⟨o1, l1⟩ := qdigP_succ refStep b n r (Cell.carry c)
    have hsubv : ∀ x ∈ subTrace refStep r b, x.1 ∈ V_DIV := fun x hx =>
      List.mem_append_left _ (sub_div_closed _ r b .blank hr hb (by decide)
        (by have : Cell.blank.val = 0 := rfl; omega) x hx)
    by_cases hge : rowVal b ≤ rowVal r
    · obtain ⟨s1, s2, s3⟩ := sub_ge r b hr hb hge
      have hc9 : c < 9 := by
        rcases Nat.lt_or_ge c 9 with h | h
        · exact h
        · have := mul_ge_of_le c 9 (rowVal b) h
          omega
      obtain ⟨hstep, hmem⟩ := dq_fit c (List.mem_range.mpr hc9)
      have hv : (⟨.DQ, lastFlag (subTrace refStep r b) .blank, Cell.carry c, .blank⟩ : View) =
          ⟨.DQ, .blank, Cell.carry c, .blank⟩ := by rw [s3]
      obtain ⟨o2, l2⟩ := qdigK_cont refStep (qdigP b n) r (Cell.carry c) (subTrace refStep r b) _ _ hv
        hstep (by intro h; cases h)
      have hcur : rowVal (rowOf (subTrace refStep r b)) + (c + 1) * rowVal b = rowVal r + c * rowVal b := by
        rw [s1, Nat.succ_mul]
        omega
      obtain ⟨i1, i2, i3, i4⟩ := ih (rowOf (subTrace refStep r b)) (c + 1) s2 (by omega) (by omega)
      rw [hcur] at i1 i2
      rw [o1, o2, l1, l2]
      refine ⟨i1, i2, i3, ?_⟩
      intro x hx
      rcases List.mem_append.mp hx with e | e
      · exact hsubv x e
      · rcases List.mem_cons.mp e with e' | e'
        · subst e'; exact List.mem_append_right _ hmem
        · exact i4 x e'
    · have hlt' : rowVal r < rowVal b := by omega
      obtain ⟨s1, _, s3, _⟩ := sub_correct r b hr hb
      have hfl : lastFlag (subTrace refStep r b) .blank = .d1 := by
        rcases mem_carries s3 with e | e
        · rw [e, show Cell.blank.val = 0 from rfl, Nat.zero_mul, Nat.add_zero] at s1
          omega
        · exact e
      have hc10 : c < 10 := by
        rcases Nat.lt_or_ge c 10 with h | h
        · exact h
        · have := mul_ge_of_le c 10 (rowVal b) h
          omega
      obtain ⟨hstep, hmem⟩ := dq_stop c (List.mem_range.mpr hc10)
      have hv : (⟨.DQ, lastFlag (subTrace refStep r b) .blank, Cell.carry c, .blank⟩ : View) =
          ⟨.DQ, .d1, Cell.carry c, .blank⟩ := by rw [hfl]
      obtain ⟨o2, l2⟩ := qdigK_halt refStep (qdigP b n) r (Cell.carry c) (subTrace refStep r b) _ _ hv
        hstep rfl
      have hq : (rowVal r + c * rowVal b) / rowVal b = c := by
        rw [Nat.add_mul_div_right _ _ hB, Nat.div_eq_of_lt hlt', Nat.zero_add]
      have hm : (rowVal r + c * rowVal b) % rowVal b = rowVal r := by
        rw [Nat.add_mul_mod_self_right, Nat.mod_eq_of_lt hlt']
      rw [o1, o2, l1, l2, hq, hm]
      refine ⟨rfl, rfl, hr, ?_⟩
      intro x hx
      rcases List.mem_append.mp hx with e | e
      · exact hsubv x e
      · rw [List.mem_singleton] at e
        subst e
        exact List.mem_append_right _ hmem

/-! ### Long division: the reference run -/

/-- The value of digits read from the top (`hiVal xs R`: `R` followed by the digits of `xs`). -/
def hiVal : List Cell → Nat → Nat
  | [], R => R
  | x :: xs, R => hiVal xs (x.val + 10 * R)

theorem hiVal_add : ∀ (xs : List Cell) (R S : Nat), hiVal xs (R + S) = hiVal xs R + S * 10 ^ xs.length
  | [], R, S => by
    show R + S = R + S * 10 ^ 0
    rw [Nat.pow_zero, Nat.mul_one]
  | x :: xs, R, S => by
    show hiVal xs (x.val + 10 * (R + S)) = hiVal xs (x.val + 10 * R) + S * 10 ^ (xs.length + 1)
    rw [show x.val + 10 * (R + S) = (x.val + 10 * R) + 10 * S by omega, hiVal_add xs _ (10 * S),
      Nat.pow_succ, Nat.mul_comm (10 ^ xs.length) 10, ← Nat.mul_assoc, Nat.mul_comm S 10]

theorem hiVal_append : ∀ (l1 l2 : List Cell) (R : Nat), hiVal (l1 ++ l2) R = hiVal l2 (hiVal l1 R)
  | [], _, _ => rfl
  | x :: xs, l2, R => hiVal_append xs l2 (x.val + 10 * R)

theorem hiVal_reverse : ∀ (l : List Cell) (R : Nat), hiVal l.reverse R = rowVal l + R * 10 ^ l.length
  | [], R => by
    show R = 0 + R * 10 ^ 0
    rw [Nat.pow_zero, Nat.mul_one, Nat.zero_add]
  | y :: l, R => by
    rw [List.reverse_cons, hiVal_append, hiVal_reverse l R]
    show y.val + 10 * (rowVal l + R * 10 ^ l.length) = (y.val + 10 * rowVal l) + R * 10 ^ (l.length + 1)
    rw [Nat.mul_add, Nat.pow_succ, Nat.mul_left_comm 10 R, Nat.mul_comm 10 (10 ^ l.length)]
    omega

theorem digit_isDigit_of_lt (d : Nat) (h : d < 10) : (Cell.digit d).isDigit = true := Cell.isDigit_digit d h

theorem carry_zero : Cell.carry 0 = .blank := rfl

/-- **The positions of a long division.** From a remainder below the divisor, each brought-down
digit adds one quotient digit; the quotient digits `ds` (prepended to `q`) and the remainder
satisfy `ds · B + r = hiVal xs rem`; only views of `V_DIV`. -/
theorem divGo_ref (b : List Cell) (hb : Digits b) (hB : 0 < rowVal b) (hlt : rowVal b < 10 ^ b.length) :
    ∀ (xs rem q : List Cell), Digits xs → Digits rem → rowVal rem < rowVal b →
      ∃ ds, (out refStep (divGo b xs rem q)).1 = ds ++ q ∧ ds.length = xs.length ∧ Digits ds ∧
        Digits (out refStep (divGo b xs rem q)).2 ∧ rowVal (out refStep (divGo b xs rem q)).2 < rowVal b ∧
        rowVal ds * rowVal b + rowVal (out refStep (divGo b xs rem q)).2 = hiVal xs (rowVal rem) ∧
        ∀ x ∈ log refStep (divGo b xs rem q), x.1 ∈ V_DIV := by
  intro xs
  induction xs with
  | nil =>
    intro rem q _ hrem hlt'
    refine ⟨[], rfl, rfl, digits_nil, hrem, hlt', ?_, fun x hx => by cases hx⟩
    show 0 * rowVal b + rowVal rem = rowVal rem
    rw [Nat.zero_mul, Nat.zero_add]
  | cons x xs ih =>
    intro rem q hxs hrem hlt'
    obtain ⟨hx, hxs'⟩ := digits_cons hxs
    obtain ⟨o1, l1⟩ := divGo_cons refStep b x xs rem q
    have htake : rowVal (rem.take b.length) = rowVal rem := rowVal_take_of_lt _ _ (by omega)
    have hcurd : Digits (x :: rem.take b.length) := digits_cons_intro hx (digits_take _ hrem)
    have hcurv : rowVal (x :: rem.take b.length) = x.val + 10 * rowVal rem := by
      rw [rowVal_cons, htake]
    have hx9 := Cell.val_le x
    obtain ⟨q1, q2, q3, q4⟩ := qdig_ref b hb hB 10 (x :: rem.take b.length) 0 hcurd (by omega)
      (by rw [Nat.zero_mul, Nat.add_zero, hcurv]; omega)
    rw [carry_zero] at q1 q2 q3 q4
    rw [Nat.zero_mul, Nat.add_zero, hcurv] at q1 q2
    have hd10 : (x.val + 10 * rowVal rem) / rowVal b < 10 :=
      Nat.div_lt_of_lt_mul (by rw [Nat.mul_comm]; omega)
    have hr1 : rowVal (out refStep (qdigP b 10 (x :: rem.take b.length) .blank)).2 < rowVal b := by
      rw [q2]; exact Nat.mod_lt _ hB
    obtain ⟨ds, e1, e2, e3, e4, e5, e6, e7⟩ := ih (out refStep (qdigP b 10 (x :: rem.take b.length) .blank)).2
      ((out refStep (qdigP b 10 (x :: rem.take b.length) .blank)).1 :: q) hxs' q3 hr1
    refine ⟨ds ++ [Cell.digit ((x.val + 10 * rowVal rem) / rowVal b)], ?_, ?_, ?_, ?_, ?_, ?_, ?_⟩
    · rw [o1, e1, q1, List.append_assoc]
      rfl
    · rw [List.length_append, e2]
      rfl
    · exact digits_append e3 (digits_single _ (digit_isDigit_of_lt _ hd10))
    · rw [o1]; exact e4
    · rw [o1]; exact e5
    · rw [o1, rowVal_app, e2]
      have hdv : rowVal [Cell.digit ((x.val + 10 * rowVal rem) / rowVal b)] =
          (x.val + 10 * rowVal rem) / rowVal b := by
        rw [rowVal_cons, Cell.val_digit _ hd10]
        rfl
      rw [hdv]
      have hdm := Nat.mod_add_div (x.val + 10 * rowVal rem) (rowVal b)
      have k1 : hiVal (x :: xs) (rowVal rem) = hiVal xs ((x.val + 10 * rowVal rem) % rowVal b) +
          rowVal b * ((x.val + 10 * rowVal rem) / rowVal b) * 10 ^ xs.length := by
        show hiVal xs (x.val + 10 * rowVal rem) = _
        conv => lhs; rw [← hdm]
        exact hiVal_add _ _ _
      have k2 : (rowVal ds + 10 ^ xs.length * ((x.val + 10 * rowVal rem) / rowVal b)) * rowVal b =
          rowVal ds * rowVal b + rowVal b * ((x.val + 10 * rowVal rem) / rowVal b) * 10 ^ xs.length := by
        rw [Nat.add_mul, Nat.mul_comm (10 ^ xs.length), Nat.mul_right_comm _ (10 ^ xs.length),
          Nat.mul_comm ((x.val + 10 * rowVal rem) / rowVal b) (rowVal b)]
      rw [q2] at e6
      rw [k2, k1]
      omega
    · intro y hy
      rw [l1] at hy
      rcases List.mem_append.mp hy with e | e
      · exact q4 y e
      · exact e7 y e

/-- **Correctness (long division).** For a digit row `a` of any length and a divisor `b` (digits,
top digit not 0), the reference writes a quotient row denoting `a / b` and a remainder row
denoting `a % b`, and presents only views of `V_DIV`. -/
theorem div_correct (a b : List Cell) (ha : Digits a) (hb : Digits b) (htop : topNZ b = true) :
    rowVal (out refStep (divP a b)).1 = rowVal a / rowVal b ∧
    rowVal (out refStep (divP a b)).2 = rowVal a % rowVal b ∧
    Digits (out refStep (divP a b)).1 ∧ Digits (out refStep (divP a b)).2 ∧
    ∀ x ∈ log refStep (divP a b), x.1 ∈ V_DIV := by
  have hB := topNZ_pos b hb htop
  have hge := topNZ_ge b hb htop
  have hlt := rowVal_lt_pow b
  have hmax : rowVal b < 10 ^ (max b.length 1) := by
    have : 10 ^ b.length ≤ 10 ^ (max b.length 1) := Nat.pow_le_pow_right (by decide) (Nat.le_max_left _ _)
    omega
  by_cases hs : a.length < b.length
  · obtain ⟨o1, l1⟩ := divP_short refStep a b hs
    have hal := rowVal_lt_pow a
    have hpow : 10 ^ a.length ≤ 10 ^ (b.length - 1) := Nat.pow_le_pow_right (by decide) (by omega)
    have hab : rowVal a < rowVal b := by omega
    obtain ⟨q1, q2, q3, q4⟩ := qdig_ref b hb hB 10 a 0 ha (by omega) (by rw [Nat.zero_mul, Nat.add_zero]; omega)
    rw [carry_zero] at q1 q2 q3 q4
    rw [Nat.zero_mul, Nat.add_zero] at q1 q2
    have hq0 : rowVal a / rowVal b = 0 := Nat.div_eq_of_lt hab
    rw [hq0] at q1
    have hm : rowVal a % rowVal b = rowVal a := Nat.mod_eq_of_lt hab
    rw [hm] at q2
    rw [o1, l1]
    refine ⟨?_, ?_, ?_, digits_take _ q3, q4⟩
    · show rowVal [(out refStep (qdigP b 10 a .blank)).1] = _
      rw [q1, hq0]
      rfl
    · rw [rowVal_take_of_lt _ _ (by rw [q2]; omega), q2, hm]
    · rw [q1]; exact digits_single _ rfl
  · obtain ⟨o1, l1⟩ := divP_long refStep a b hs
    have hdl : (a.drop (a.length - b.length + 1)).length = b.length - 1 := by
      rw [List.length_drop]; omega
    have hdv : rowVal (a.drop (a.length - b.length + 1)) < rowVal b := by
      have := rowVal_lt_pow (a.drop (a.length - b.length + 1))
      rw [hdl] at this
      omega
    obtain ⟨ds, e1, _, e3, e4, e5, e6, e7⟩ := divGo_ref b hb hB hlt
      (a.take (a.length - b.length + 1)).reverse (a.drop (a.length - b.length + 1)) []
      (digits_reverse (digits_take _ ha)) (digits_drop _ ha) hdv
    rw [hiVal_reverse] at e6
    have hav : rowVal a = rowVal (a.take (a.length - b.length + 1)) +
        rowVal (a.drop (a.length - b.length + 1)) * 10 ^ (a.take (a.length - b.length + 1)).length := by
      conv => lhs; rw [← List.take_append_drop (a.length - b.length + 1) a]
      rw [rowVal_app, Nat.mul_comm]
    rw [← hav] at e6
    rw [List.append_nil] at e1
    have hq : rowVal a / rowVal b = rowVal ds := by
      rw [← e6, Nat.add_comm, Nat.add_mul_div_right _ _ hB, Nat.div_eq_of_lt e5, Nat.zero_add]
    have hr : rowVal a % rowVal b = rowVal (out refStep (divGo b (a.take (a.length - b.length + 1)).reverse
        (a.drop (a.length - b.length + 1)) [])).2 := by
      rw [← e6, Nat.add_comm, Nat.add_mul_mod_self_right, Nat.mod_eq_of_lt e5]
    rw [o1, l1]
    refine ⟨?_, ?_, ?_, digits_take _ e4, e7⟩
    · show rowVal (out refStep (divGo b _ _ [])).1 = _
      rw [e1, hq]
    · show rowVal ((out refStep (divGo b _ _ [])).2.take (max b.length 1)) = _
      rw [rowVal_take_of_lt _ _ (by omega), hr]
    · show Digits (out refStep (divGo b _ _ [])).1
      rw [e1]; exact e3

/-! ### Long division: witnesses and reduction -/

theorem W_DIV_fst : W_DIV.map Prod.fst = V_DIV := by decide +kernel

theorem W_DIV_ok : ∀ w ∈ W_DIV, (allDigits w.2.1 = true ∧ allDigits w.2.2 = true ∧ topNZ w.2.2 = true) ∧
    w.1 ∈ Prog.views refStep (divP w.2.1 w.2.2) := by decide +kernel

/-- **Reduction (long division).** A stepper runs every long division of a digit row of any
length by a divisor of any length (digits, top digit not 0) exactly as the reference iff it
agrees with the reference on the 260 views of `V_DIV` (the 241 `SUB` views of `subDiv` and the
19 `DQ` views). -/
theorem reduction_divide (f : Stepper) :
    (∀ v ∈ V_DIV, f v = refStep v) ↔
      ∀ a b : List Cell, Digits a → Digits b → topNZ b = true →
        steps f (divP a b) = steps refStep (divP a b) := by
  have h := reduction_of (fun i : List Cell × List Cell => divP i.1 i.2)
    (fun i => Digits i.1 ∧ Digits i.2 ∧ topNZ i.2 = true) (fun v => v ∈ V_DIV)
    (fun i hi => (div_correct i.1 i.2 hi.1 hi.2.1 hi.2.2).2.2.2.2)
    (fun v hv => by
      rw [← W_DIV_fst] at hv
      exact wit_of_list _ _ W_DIV (fun w hw => W_DIV_ok w hw) v hv) f
  constructor
  · intro hf a b ha hb ht; exact h.mp hf (a, b) ⟨ha, hb, ht⟩
  · intro hr; exact h.mpr (fun i hi => hr i.1 i.2 hi.1 hi.2.1 hi.2.2)

/-! ### Signed floor division (`signed_divmod`) -/

/-- After the `SGN/` step: `ADJ` adds 1 to the quotient and replaces the remainder `r` by
`|b| − r`; the signs are the step's symbol (quotient) and flag (remainder). -/
def sdivAdj (b : SNum) (q r : List Cell) (s : Step) : Prog (SNum × SNum) :=
  if s.next = .ADJ then
    (incP .INC q).bind fun q' => (rowsP .SUB b.2 r).bind fun t =>
      done ((s.sym, canon q'), (s.flag, canon (rowOf t)))
  else done ((s.sym, canon q), (s.flag, canon r))

/-- After the division: zero test of the remainder, then the `SGN/` view. -/
def sdivSgn (a b : SNum) (qr : List Cell × List Cell) : Prog (SNum × SNum) :=
  (zeroP (canon qr.2)).bind fun z => ask ⟨.SGNDIV, a.1, b.1, z⟩ (sdivAdj b qr.1 (canon qr.2))

/-- `signed_divmod`: the zero test of the divisor (a zero divisor is an `InputError` in Python,
outside the domain here), the long division of the magnitudes, then the signs. -/
def divmodP (a b : SNum) : Prog (SNum × SNum) :=
  (zeroP b.2).bind fun _ => (divP a.2 b.2).bind (sdivSgn a b)

theorem divmodP_eq (f : Stepper) (a b : SNum) :
    out f (divmodP a b) = out f (sdivSgn a b (out f (divP a.2 b.2))) ∧
    log f (divmodP a b) = log f (zeroP b.2) ++
      (log f (divP a.2 b.2) ++ log f (sdivSgn a b (out f (divP a.2 b.2)))) := by
  refine ⟨?_, ?_⟩
  · show out f ((zeroP b.2).bind fun _ => (divP a.2 b.2).bind (sdivSgn a b)) = _
    rw [out_bind]
    exact out_bind f _ _
  · show log f ((zeroP b.2).bind fun _ => (divP a.2 b.2).bind (sdivSgn a b)) = _
    rw [log_bind]
    exact congrArg _ (log_bind f _ _)

theorem sdivSgn_eq (f : Stepper) (a b : SNum) (qr : List Cell × List Cell) :
    out f (sdivSgn a b qr) =
      out f (sdivAdj b qr.1 (canon qr.2) (f ⟨.SGNDIV, a.1, b.1, out f (zeroP (canon qr.2))⟩)) ∧
    log f (sdivSgn a b qr) = log f (zeroP (canon qr.2)) ++
      (⟨.SGNDIV, a.1, b.1, out f (zeroP (canon qr.2))⟩, f ⟨.SGNDIV, a.1, b.1, out f (zeroP (canon qr.2))⟩) ::
        log f (sdivAdj b qr.1 (canon qr.2) (f ⟨.SGNDIV, a.1, b.1, out f (zeroP (canon qr.2))⟩)) :=
  ⟨out_bind f _ _, log_bind f _ _⟩

theorem sdivAdj_halt (f : Stepper) (b : SNum) (q r : List Cell) (s : Step) (h : s.next ≠ .ADJ) :
    out f (sdivAdj b q r s) = ((s.sym, canon q), (s.flag, canon r)) ∧ log f (sdivAdj b q r s) = [] := by
  unfold sdivAdj
  rw [if_neg h]
  exact ⟨rfl, rfl⟩

theorem sdivAdj_adj (f : Stepper) (b : SNum) (q r : List Cell) (s : Step) (h : s.next = .ADJ) :
    out f (sdivAdj b q r s) =
      ((s.sym, canon (out f (incP .INC q))), (s.flag, canon (rowOf (subTrace f b.2 r)))) ∧
    log f (sdivAdj b q r s) = log f (incP .INC q) ++ subTrace f b.2 r := by
  unfold sdivAdj
  rw [if_pos h]
  refine ⟨?_, ?_⟩
  · rw [out_bind]
    show out f ((rowsP .SUB b.2 r).bind fun t =>
      done ((s.sym, canon (out f (incP .INC q))), (s.flag, canon (rowOf t)))) = _
    rw [out_bind, rowsP_out]
    rfl
  · rw [log_bind]
    show log f (incP .INC q) ++ log f ((rowsP .SUB b.2 r).bind fun t =>
      done ((s.sym, canon (out f (incP .INC q))), (s.flag, canon (rowOf t)))) = _
    rw [log_bind, rowsP_log]
    show _ ++ (_ ++ []) = _
    rw [List.append_nil]
    rfl

def zflags : List Cell := [.zero, .nonzero]

theorem sgndiv_same : ∀ s ∈ signs, ∀ z ∈ zflags,
    refStep ⟨.SGNDIV, s, s, z⟩ = ⟨.plus, s, .HALT⟩ := by decide +kernel

theorem sgndiv_diff : ∀ sa ∈ signs, ∀ sb ∈ signs, sa ≠ sb →
    refStep ⟨.SGNDIV, sa, sb, .zero⟩ = ⟨.minus, sb, .HALT⟩ ∧
    refStep ⟨.SGNDIV, sa, sb, .nonzero⟩ = ⟨.minus, sb, .ADJ⟩ := by decide +kernel

theorem sgndiv_mem : ∀ sa ∈ signs, ∀ sb ∈ signs, ∀ z ∈ zflags,
    (⟨.SGNDIV, sa, sb, z⟩ : View) ∈ V_SGNDIV := by decide +kernel

/-- Floor division of integers from the division of magnitudes `A = Q·B + R` (Python's `//`
and `%`: the remainder takes the divisor's sign). -/
theorem floor_cases (A B Q R : Nat) (hB : 0 < B) (hd : R + B * Q = A) (hR : R < B) :
    (Int.fdiv (A : Int) (B : Int) = Q ∧ Int.fmod (A : Int) (B : Int) = R) ∧
    (Int.fdiv (-(A : Int)) (-(B : Int)) = Q ∧ Int.fmod (-(A : Int)) (-(B : Int)) = -(R : Int)) ∧
    (R = 0 → Int.fdiv (-(A : Int)) (B : Int) = -(Q : Int) ∧ Int.fmod (-(A : Int)) (B : Int) = 0 ∧
      Int.fdiv (A : Int) (-(B : Int)) = -(Q : Int) ∧ Int.fmod (A : Int) (-(B : Int)) = 0) ∧
    (R ≠ 0 → Int.fdiv (-(A : Int)) (B : Int) = -((Q : Int) + 1) ∧
      Int.fmod (-(A : Int)) (B : Int) = (B : Int) - (R : Int) ∧
      Int.fdiv (A : Int) (-(B : Int)) = -((Q : Int) + 1) ∧
      Int.fmod (A : Int) (-(B : Int)) = -((B : Int) - (R : Int))) := by
  have hM : (A : Int) = (R : Int) + (B : Int) * (Q : Int) := by
    rw [← hd, Int.natCast_add, Int.natCast_mul]
  have hB' : (0 : Int) < (B : Int) := by omega
  have hnB : -(B : Int) < 0 := by omega
  refine ⟨(Int.fdiv_fmod_unique hB').mpr ⟨by omega, by omega, by omega⟩,
    (Int.fdiv_fmod_unique' hnB).mpr ⟨by simp only [Int.neg_mul]; omega, by omega, by omega⟩, ?_, ?_⟩
  · intro h0
    subst h0
    have h1 := (Int.fdiv_fmod_unique (a := -(A : Int)) (r := 0) (q := -(Q : Int)) hB').mpr
      ⟨by simp only [Int.mul_neg]; omega, by omega, by omega⟩
    have h2 := (Int.fdiv_fmod_unique' (a := (A : Int)) (r := 0) (q := -(Q : Int)) hnB).mpr
      ⟨by simp only [Int.neg_mul_neg]; omega, by omega, by omega⟩
    exact ⟨h1.1, h1.2, h2.1, h2.2⟩
  · intro h0
    have h1 := (Int.fdiv_fmod_unique (a := -(A : Int)) (r := (B : Int) - (R : Int)) (q := -((Q : Int) + 1)) hB').mpr
      ⟨by simp only [Int.mul_neg, Int.mul_add, Int.mul_one]; omega, by omega, by omega⟩
    have h2 := (Int.fdiv_fmod_unique' (a := (A : Int)) (r := -((B : Int) - (R : Int))) (q := -((Q : Int) + 1)) hnB).mpr
      ⟨by simp only [Int.neg_mul_neg, Int.mul_add, Int.mul_one]; omega, by omega, by omega⟩
    exact ⟨h1.1, h1.2, h2.1, h2.2⟩

/-- The same, with the signs of Sketchpad's numbers: the `SGN/` step's quotient sign, the
quotient `Q` (or `Q + 1` after `ADJ`), the remainder `R` (or `B − R`) with the divisor's sign. -/
theorem floor_sval (sa sb : Cell) (hsa : sa ∈ signs) (hsb : sb ∈ signs) (A B Q R : Nat) (hB : 0 < B)
    (hd : R + B * Q = A) (hR : R < B) :
    ((sa = sb ∨ R = 0) → sval (if sa = sb then Cell.plus else Cell.minus) Q = Int.fdiv (sval sa A) (sval sb B) ∧
      sval sb R = Int.fmod (sval sa A) (sval sb B)) ∧
    (sa ≠ sb → R ≠ 0 → sval (if sa = sb then Cell.plus else Cell.minus) (Q + 1) = Int.fdiv (sval sa A) (sval sb B) ∧
      sval sb (B - R) = Int.fmod (sval sa A) (sval sb B)) := by
  obtain ⟨c1, c2, c3, c4⟩ := floor_cases A B Q R hB hd hR
  have hpm : ¬ (Cell.plus = Cell.minus) := by decide
  have hmp : ¬ (Cell.minus = Cell.plus) := by decide
  rcases mem_signs hsa with e1 | e1 <;> rcases mem_signs hsb with e2 | e2 <;> subst e1 <;> subst e2
  · rw [if_pos rfl]
    simp only [sval_plus]
    exact ⟨fun _ => ⟨c1.1.symm, c1.2.symm⟩, fun h => absurd rfl h⟩
  · rw [if_neg hpm]
    simp only [sval_plus, sval_minus]
    refine ⟨?_, ?_⟩
    · intro h
      rcases h with h | h
      · exact absurd h hpm
      · obtain ⟨_, _, h3, h4⟩ := c3 h
        rw [h3, h4, h]
        exact ⟨rfl, by simp⟩
    · intro _ h
      obtain ⟨_, _, h3, h4⟩ := c4 h
      rw [h3, h4]
      refine ⟨?_, ?_⟩ <;> omega
  · rw [if_neg hmp]
    simp only [sval_plus, sval_minus]
    refine ⟨?_, ?_⟩
    · intro h
      rcases h with h | h
      · exact absurd h hmp
      · obtain ⟨h1, h2, _, _⟩ := c3 h
        rw [h1, h2, h]
        exact ⟨rfl, by simp⟩
    · intro _ h
      obtain ⟨h1, h2, _, _⟩ := c4 h
      rw [h1, h2]
      refine ⟨?_, ?_⟩ <;> omega
  · rw [if_pos rfl]
    simp only [sval_minus]
    exact ⟨fun _ => ⟨c2.1.symm, c2.2.symm⟩, fun h => absurd rfl h⟩

/-- The views of a signed floor division: the 242 `SUB` views, the 19 `DQ` views, the 11 `ZT`
views, the 11 `INC` views and the 8 `SGN/` views (291 views). -/
def VSDIV (v : View) : Prop := v ∈ V_SUB ∨ v ∈ V_DQ ∨ v ∈ V_ZT ∨ v ∈ V_INC ∨ v ∈ V_SGNDIV

theorem V_DIV_VSDIV (v : View) (h : v ∈ V_DIV) : VSDIV v := by
  rcases List.mem_append.mp h with e | e
  · exact Or.inl (List.mem_filter.mp e).1
  · exact Or.inr (Or.inl e)

theorem SNum.sign_plus_minus (s : Cell) (h : s ∈ signs) : s = .plus ∨ s = .minus := mem_signs h

/-- **The reference run of a signed floor division.** For signed numbers `a`, `b` (digit rows of
any lengths, `b`'s top digit not 0), the reference writes two well-formed signed numbers
denoting `Int.fdiv a b` and `Int.fmod a b` (Python's `a // b` and `a % b`) and presents only
views of `VSDIV`. -/
theorem divmod_ref (a b : SNum) (ha : a.WF) (hb : b.WF) (htop : topNZ b.2 = true) :
    ((out refStep (divmodP a b)).1.WF ∧ (out refStep (divmodP a b)).2.WF ∧
      (out refStep (divmodP a b)).1.val = Int.fdiv a.val b.val ∧
      (out refStep (divmodP a b)).2.val = Int.fmod a.val b.val) ∧
    ∀ x ∈ log refStep (divmodP a b), VSDIV x.1 := by
  obtain ⟨d1, d2, d3, d4, d5⟩ := div_correct a.2 b.2 ha.2 hb.2 htop
  have hB := topNZ_pos b.2 hb.2 htop
  obtain ⟨o1, l1⟩ := divmodP_eq refStep a b
  obtain ⟨o2, l2⟩ := sdivSgn_eq refStep a b (out refStep (divP a.2 b.2))
  rw [o2] at o1
  rw [l2] at l1
  have hz := zero_correct (canon (out refStep (divP a.2 b.2)).2) (canon_digits _ d4)
  rw [canon_val, d2] at hz
  rw [hz] at o1 l1
  have hsa := SNum.sign_mem ha
  have hsb := SNum.sign_mem hb
  have hav : a.val = sval a.1 (rowVal a.2) := rfl
  have hbv : b.val = sval b.1 (rowVal b.2) := rfl
  have hdm := Nat.mod_add_div (rowVal a.2) (rowVal b.2)
  have hRB := Nat.mod_lt (rowVal a.2) hB
  obtain ⟨fs1, fs2⟩ := floor_sval a.1 b.1 hsa hsb (rowVal a.2) (rowVal b.2) _ _ hB hdm hRB
  have hzmem : (if rowVal a.2 % rowVal b.2 = 0 then Cell.zero else Cell.nonzero) ∈ zflags := by
    by_cases h0 : rowVal a.2 % rowVal b.2 = 0
    · rw [if_pos h0]; decide
    · rw [if_neg h0]; decide
  have hsgnv := sgndiv_mem a.1 hsa b.1 hsb _ hzmem
  have hcommon : ∀ (t : List (View × Step)), (∀ x ∈ t, VSDIV x.1) →
      ∀ x ∈ log refStep (zeroP b.2) ++ (log refStep (divP a.2 b.2) ++
        (log refStep (zeroP (canon (out refStep (divP a.2 b.2)).2)) ++ t)), VSDIV x.1 := by
    intro t ht x hx
    rcases List.mem_append.mp hx with e | e
    · exact Or.inr (Or.inr (Or.inl (zero_closed b.2 hb.2 x e)))
    · rcases List.mem_append.mp e with e | e
      · exact V_DIV_VSDIV _ (d5 x e)
      · rcases List.mem_append.mp e with e | e
        · exact Or.inr (Or.inr (Or.inl (zero_closed _ (canon_digits _ d4) x e)))
        · exact ht x e
  have hsq : ∀ sq : Cell, sq = (if a.1 = b.1 then Cell.plus else Cell.minus) → sq = .plus ∨ sq = .minus := by
    intro sq e
    by_cases h : a.1 = b.1
    · rw [if_pos h] at e; exact Or.inl e
    · rw [if_neg h] at e; exact Or.inr e
  by_cases hadj : a.1 ≠ b.1 ∧ rowVal a.2 % rowVal b.2 ≠ 0
  · -- ADJ: q + 1 and |b| − r
    obtain ⟨hne, hR0⟩ := hadj
    have hstep := (sgndiv_diff a.1 hsa b.1 hsb hne).2
    rw [if_neg hR0] at o1 l1 hsgnv
    rw [hstep] at o1 l1
    obtain ⟨a1, a2⟩ := sdivAdj_adj refStep b (out refStep (divP a.2 b.2)).1
      (canon (out refStep (divP a.2 b.2)).2) ⟨.minus, b.1, .ADJ⟩ rfl
    rw [a1] at o1
    rw [a2] at l1
    obtain ⟨i1, i2⟩ := inc_correct _ d3
    have hle : rowVal (canon (out refStep (divP a.2 b.2)).2) ≤ rowVal b.2 := by
      rw [canon_val, d2]; omega
    obtain ⟨u1, u2, _⟩ := sub_ge b.2 _ hb.2 (canon_digits _ d4) hle
    obtain ⟨g1, g2⟩ := fs2 hne hR0
    rw [if_neg hne] at g1
    refine ⟨⟨?_, ?_, ?_, ?_⟩, ?_⟩
    · rw [o1]; exact ⟨Or.inr rfl, canon_digits _ i2⟩
    · rw [o1]; exact ⟨mem_signs hsb, canon_digits _ u2⟩
    · rw [o1, hav, hbv, ← g1, val_eq_sval, canon_val, i1, d1]
    · rw [o1, hav, hbv, ← g2, val_eq_sval, canon_val, u1, canon_val, d2]
    · rw [l1]
      refine hcommon _ ?_
      intro x hx
      rcases List.mem_cons.mp hx with e | e
      · subst e; exact Or.inr (Or.inr (Or.inr (Or.inr hsgnv)))
      · rcases List.mem_append.mp e with e | e
        · exact Or.inr (Or.inr (Or.inr (Or.inl (inc_closed _ d3 x e))))
        · exact Or.inl (List.mem_filter.mp (sub_ge_sound b.2 _ hb.2 (canon_digits _ d4) hle x e)).1
  · -- HALT: the quotient and remainder as they are
    have hor : a.1 = b.1 ∨ rowVal a.2 % rowVal b.2 = 0 := by
      by_cases h : a.1 = b.1
      · exact Or.inl h
      · exact Or.inr (Classical.byContradiction fun h' => hadj ⟨h, h'⟩)
    have hstep : refStep ⟨.SGNDIV, a.1, b.1, if rowVal a.2 % rowVal b.2 = 0 then Cell.zero else Cell.nonzero⟩ =
        ⟨if a.1 = b.1 then .plus else .minus, b.1, .HALT⟩ := by
      by_cases h : a.1 = b.1
      · rw [if_pos h]
        have e := sgndiv_same a.1 hsa _ hzmem
        rw [h] at e ⊢
        exact e
      · have h0 : rowVal a.2 % rowVal b.2 = 0 := by
          rcases hor with h' | h'
          · exact absurd h' h
          · exact h'
        rw [if_neg h, if_pos h0]
        exact (sgndiv_diff a.1 hsa b.1 hsb h).1
    rw [hstep] at o1 l1
    obtain ⟨a1, a2⟩ := sdivAdj_halt refStep b (out refStep (divP a.2 b.2)).1
      (canon (out refStep (divP a.2 b.2)).2) ⟨if a.1 = b.1 then .plus else .minus, b.1, .HALT⟩ (by intro h; cases h)
    rw [a1] at o1
    rw [a2] at l1
    obtain ⟨g1, g2⟩ := fs1 hor
    refine ⟨⟨?_, ?_, ?_, ?_⟩, ?_⟩
    · rw [o1]; exact ⟨hsq _ rfl, canon_digits _ d3⟩
    · rw [o1]; exact ⟨mem_signs hsb, canon_digits _ (canon_digits _ d4)⟩
    · rw [o1, hav, hbv, ← g1, val_eq_sval, canon_val, d1]
    · rw [o1, hav, hbv, ← g2, val_eq_sval, canon_val, canon_val, d2]
    · rw [l1]
      refine hcommon _ ?_
      intro x hx
      rcases List.mem_cons.mp hx with e | e
      · subst e; exact Or.inr (Or.inr (Or.inr (Or.inr hsgnv)))
      · cases e

/-! ### Signed floor division: witnesses, reduction, the exact procedures `//` and `%` -/

theorem V_SUB_op : ∀ v ∈ V_SUB, v.op = .SUB := by decide +kernel

/-- The one `SUB` view of V a long division never presents: presented by `|b| − r` after `ADJ`. -/
theorem sub_nine (v : View) (hv : v ∈ V_SUB) (h : ¬ subDiv v) : v = ⟨.SUB, .d9, .blank, .blank⟩ := by
  have ho := V_SUB_op v hv
  have h' : v.a = .d9 ∧ v.b = .blank ∧ v.c = .blank := Classical.byContradiction h
  cases v with
  | mk op a b c =>
    have e0 : op = .SUB := ho
    have e1 : a = .d9 := h'.1
    have e2 : b = .blank := h'.2.1
    have e3 : c = .blank := h'.2.2
    subst e0 e1 e2 e3
    rfl

theorem W_SDIV_fst : W_SDIV.map Prod.fst = [⟨.SUB, .d9, .blank, .blank⟩] ++ V_ZT ++ V_INC ++ V_SGNDIV := by
  decide +kernel

theorem W_SDIV_ok : ∀ w ∈ W_SDIV, (SNum.wfb w.2.1 = true ∧ SNum.wfb w.2.2 = true ∧ topNZ w.2.2.2 = true) ∧
    w.1 ∈ Prog.views refStep (divmodP w.2.1 w.2.2) := by decide +kernel

/-- The views of a long division are presented by the signed division of the same rows. -/
theorem div_views_divmod (xs ys : List Cell) (v : View) (hv : v ∈ Prog.views refStep (divP xs ys)) :
    v ∈ Prog.views refStep (divmodP (.plus, xs) (.plus, ys)) := by
  unfold Prog.views at hv ⊢
  rw [(divmodP_eq refStep (.plus, xs) (.plus, ys)).2, List.map_append, List.map_append]
  exact List.mem_append_right _ (List.mem_append_left _ hv)

theorem divmod_wit : ∀ v, VSDIV v → ∃ i : SNum × SNum, (i.1.WF ∧ i.2.WF ∧ topNZ i.2.2 = true) ∧
    v ∈ Prog.views refStep (divmodP i.1 i.2) := by
  intro v hv
  have hW : ∀ v, v ∈ [⟨.SUB, .d9, .blank, .blank⟩] ++ V_ZT ++ V_INC ++ V_SGNDIV →
      ∃ i : SNum × SNum, (i.1.WF ∧ i.2.WF ∧ topNZ i.2.2 = true) ∧ v ∈ Prog.views refStep (divmodP i.1 i.2) := by
    intro v hv
    rw [← W_SDIV_fst] at hv
    obtain ⟨w, hw, rfl⟩ := List.mem_map.mp hv
    obtain ⟨⟨h1, h2, h3⟩, h4⟩ := W_SDIV_ok w hw
    exact ⟨w.2, ⟨SNum.wf_of_wfb _ h1, SNum.wf_of_wfb _ h2, h3⟩, h4⟩
  have hD : ∀ v, v ∈ V_DIV → ∃ i : SNum × SNum, (i.1.WF ∧ i.2.WF ∧ topNZ i.2.2 = true) ∧
      v ∈ Prog.views refStep (divmodP i.1 i.2) := by
    intro v hv
    rw [← W_DIV_fst] at hv
    obtain ⟨w, hw, rfl⟩ := List.mem_map.mp hv
    obtain ⟨⟨h1, h2, h3⟩, h4⟩ := W_DIV_ok w hw
    exact ⟨((.plus, w.2.1), (.plus, w.2.2)), ⟨⟨Or.inl rfl, h1⟩, ⟨Or.inl rfl, h2⟩, h3⟩,
      div_views_divmod _ _ _ h4⟩
  rcases hv with h | h | h | h | h
  · by_cases hs : subDiv v
    · exact hD v (List.mem_append_left _ (List.mem_filter.mpr ⟨h, decide_eq_true hs⟩))
    · rw [sub_nine v h hs]
      exact hW _ (by simp)
  · exact hD v (List.mem_append_right _ h)
  · exact hW v (by simp [h])
  · exact hW v (by simp [h])
  · exact hW v (by simp [h])

/-- **Reduction (signed floor division).** A stepper runs every signed floor division (`//` and
`%` together, `signed_divmod`) of signed numbers of every length exactly as the reference iff it
agrees with the reference on the 291 views of `VSDIV` (242 `SUB`, 19 `DQ`, 11 `ZT`, 11 `INC`,
8 `SGN/`). -/
theorem reduction_divmod (f : Stepper) :
    (∀ v, VSDIV v → f v = refStep v) ↔
      ∀ a b : SNum, a.WF → b.WF → topNZ b.2 = true → steps f (divmodP a b) = steps refStep (divmodP a b) := by
  have h := reduction_of (fun i : SNum × SNum => divmodP i.1 i.2)
    (fun i => i.1.WF ∧ i.2.WF ∧ topNZ i.2.2 = true) VSDIV
    (fun i hi => (divmod_ref i.1 i.2 hi.1 hi.2.1 hi.2.2).2) divmod_wit f
  constructor
  · intro hf a b ha hb ht; exact h.mp hf (a, b) ⟨ha, hb, ht⟩
  · intro hr; exact h.mpr (fun i hi => hr i.1 i.2 hi.1 hi.2.1 hi.2.2)

/-- **Correctness (signed floor division).** The reference writes `Int.fdiv a b` and
`Int.fmod a b` (Python's `a // b`, `a % b`) for signed numbers of any lengths. -/
theorem divmod_correct (a b : SNum) (ha : a.WF) (hb : b.WF) (htop : topNZ b.2 = true) :
    (out refStep (divmodP a b)).1.val = Int.fdiv a.val b.val ∧
    (out refStep (divmodP a b)).2.val = Int.fmod a.val b.val :=
  ⟨(divmod_ref a b ha hb htop).1.2.2.1, (divmod_ref a b ha hb htop).1.2.2.2⟩

/-- One of the two results of a signed floor division (`solve.ev`: `q if op == "//" else r`). -/
def pickP (a b : SNum) (k : SNum × SNum → SNum) : Prog SNum := (divmodP a b).bind fun p => done (k p)

theorem pickP_eq (f : Stepper) (a b : SNum) (k : SNum × SNum → SNum) :
    out f (pickP a b k) = k (out f (divmodP a b)) ∧ log f (pickP a b k) = log f (divmodP a b) :=
  ⟨out_bind f _ _, by unfold pickP; rw [log_bind]; exact List.append_nil _⟩

/-- Floor division `//` as an exact procedure. -/
def quotProc : ExactProc2 where
  prog := fun a b => pickP a b Prod.fst
  dom := fun _ b => topNZ b.2 = true
  views := VSDIV
  sem := fun x y => Int.fdiv x y
  closed := fun a b ha hb h => by
    rw [(pickP_eq refStep a b Prod.fst).2]; exact (divmod_ref a b ha hb h).2
  wit := fun v hv => by
    obtain ⟨i, ⟨h1, h2, h3⟩, h4⟩ := divmod_wit v hv
    refine ⟨i.1, i.2, h1, h2, h3, ?_⟩
    unfold Prog.views at h4 ⊢
    rw [(pickP_eq refStep i.1 i.2 Prod.fst).2]; exact h4
  wf := fun a b ha hb h => by
    rw [(pickP_eq refStep a b Prod.fst).1]; exact (divmod_ref a b ha hb h).1.1
  correct := fun a b ha hb h => by
    rw [(pickP_eq refStep a b Prod.fst).1]; exact (divmod_ref a b ha hb h).1.2.2.1

/-- The remainder `%` as an exact procedure. -/
def remProc : ExactProc2 where
  prog := fun a b => pickP a b Prod.snd
  dom := fun _ b => topNZ b.2 = true
  views := VSDIV
  sem := fun x y => Int.fmod x y
  closed := fun a b ha hb h => by
    rw [(pickP_eq refStep a b Prod.snd).2]; exact (divmod_ref a b ha hb h).2
  wit := fun v hv => by
    obtain ⟨i, ⟨h1, h2, h3⟩, h4⟩ := divmod_wit v hv
    refine ⟨i.1, i.2, h1, h2, h3, ?_⟩
    unfold Prog.views at h4 ⊢
    rw [(pickP_eq refStep i.1 i.2 Prod.snd).2]; exact h4
  wf := fun a b ha hb h => by
    rw [(pickP_eq refStep a b Prod.snd).1]; exact (divmod_ref a b ha hb h).1.2.1
  correct := fun a b ha hb h => by
    rw [(pickP_eq refStep a b Prod.snd).1]; exact (divmod_ref a b ha hb h).1.2.2.2

end Sketchpad
