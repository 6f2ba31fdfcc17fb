/-
  Sketchpad.Signed — the signed procedures as programs of the driver (Sketchpad/Driver.lean)
  over an arbitrary stepper (mirrors `signed_add`, `signed_mul`, `negate` of
  `sketchpad/procedures.py`, sequential mode):

  * signed addition and subtraction (`sgnAddP .SGNADD`, `sgnAddP .SGNSUB`): a sign view; if the
    step says `ADD`, add the magnitudes; if it says `CMP`, compare them, present the sign view
    again with the comparison flag, and subtract the smaller magnitude from the larger (`SUB`,
    or `SWAP` for |b| − |a|);
  * signed multiplication (`sgnMulP`): a `SGN*` view, then the long multiplication of the
    magnitudes (`mulRun`, Sketchpad/Runtime.lean);
  * negation (`negP`): one `NEG` view.

  For each: the result, read as a signed integer, is a + b, a − b, a · b, −a (and a sum or
  difference of zero is written `+0` when the operands' zeros are), and the reduction: exact on
  every input of every length iff exact on the procedure's views.
-/
module

public import Sketchpad.Compare
public import Sketchpad.Compose

@[expose] public noncomputable section

set_option autoImplicit false

set_option maxRecDepth 100000
set_option maxHeartbeats 0

namespace Sketchpad

open Prog

/-! ### Rows: the canonical form, a bound, subtraction of a smaller row -/

theorem stripTop_val : ∀ r : List Cell, rowVal (stripTop r) = rowVal r ∧ (Digits r → Digits (stripTop r))
  | [] => ⟨rfl, fun h => h⟩
  | x :: xs => by
    obtain ⟨ih1, ih2⟩ := stripTop_val xs
    by_cases h : stripTop xs = [] ∧ x = .d0
    · have e : stripTop (x :: xs) = [] := by
        rw [stripTop_cons, if_pos h]
      rw [e]
      refine ⟨?_, fun _ => digits_nil⟩
      have h0 : rowVal xs = 0 := by rw [← ih1, h.1]; rfl
      rw [rowVal_cons, h0, h.2]
      rfl
    · have e : stripTop (x :: xs) = x :: stripTop xs := by
        rw [stripTop_cons, if_neg h]
      rw [e, rowVal_cons, rowVal_cons, ih1]
      exact ⟨rfl, fun hd => digits_cons_intro (digits_cons hd).1 (ih2 (digits_cons hd).2)⟩

theorem canon_val (r : List Cell) : rowVal (canon r) = rowVal r := by
  cases r with
  | nil => rfl
  | cons x xs =>
    show x.val + 10 * rowVal (stripTop xs) = x.val + 10 * rowVal xs
    rw [(stripTop_val xs).1]

theorem canon_digits (r : List Cell) (h : Digits r) : Digits (canon r) := by
  cases r with
  | nil => exact h
  | cons x xs => exact digits_cons_intro (digits_cons h).1 ((stripTop_val xs).2 (digits_cons h).2)

/-- A row of `L` cells denotes less than `10^L`. -/
theorem rowVal_lt_pow : ∀ r : List Cell, rowVal r < 10 ^ r.length
  | [] => by decide
  | x :: xs => by
    have ih := rowVal_lt_pow xs
    have hx := Cell.val_le x
    rw [rowVal_cons, List.length_cons, Nat.pow_succ]
    omega

/-- Subtracting a row that is not larger: the written row denotes the difference, and the
final borrow is blank. -/
theorem sub_ge (xs ys : List Cell) (hx : Digits xs) (hy : Digits ys) (hle : rowVal ys ≤ rowVal xs) :
    rowVal (rowOf (subTrace refStep xs ys)) = rowVal xs - rowVal ys ∧
    Digits (rowOf (subTrace refStep xs ys)) ∧ lastFlag (subTrace refStep xs ys) .blank = .blank := by
  obtain ⟨h1, h2, h3, _⟩ := sub_correct xs ys hx hy
  have hlt := rowVal_lt_pow (rowOf (subTrace refStep xs ys))
  rcases mem_carries h3 with e | e
  · rw [e] at h1
    have e0 : Cell.blank.val = 0 := rfl
    rw [e0] at h1
    exact ⟨by omega, h2, e⟩
  · exfalso
    rw [e] at h1
    have e1 : Cell.d1.val = 1 := rfl
    rw [e1, Nat.one_mul] at h1
    omega

theorem Cell.eq_d0_of_val (x : Cell) : x.isDigit = true → x.val = 0 → x = .d0 := by
  cases x <;> decide

theorem hd_of_val_zero (ys : List Cell) (hy : Digits ys) (h : rowVal ys = 0) :
    hd ys = .d0 ∨ hd ys = .blank := by
  cases ys with
  | nil => exact Or.inr rfl
  | cons y ys' =>
    left
    rw [rowVal_cons] at h
    exact Cell.eq_d0_of_val y (digits_cons hy).1 (by omega)

/-! ### The SUB views of a subtraction of a smaller-or-equal row -/

/-- A `SUB` view a subtraction `x − y` with `y ≤ x` can present: either `x` has a digit there, or
`x` has ended, no borrow is pending, and `y` shows 0 or has ended too. -/
def subGE (v : View) : Prop := v.a ≠ .blank ∨ (v.c = .blank ∧ (v.b = .d0 ∨ v.b = .blank))

instance : DecidablePred subGE := fun v =>
  inferInstanceAs (Decidable (v.a ≠ .blank ∨ (v.c = .blank ∧ (v.b = .d0 ∨ v.b = .blank))))

/-- The 222 `SUB` views of a subtraction of a smaller-or-equal row. -/
def V_SUBGE : List View := V_SUB.filter fun v => decide (subGE v)

theorem sub_ge_closed (n : Nat) : ∀ (xs ys : List Cell) (c : Cell), Digits xs → Digits ys →
    c ∈ carries → rowVal ys + c.val ≤ rowVal xs →
    ∀ p ∈ trace refStep n .SUB xs ys c, p.1 ∈ V_SUBGE := by
  intro xs ys c hx hy hc hle
  refine trace_inv refStep (fun v => v ∈ V_SUBGE)
    (fun _ o xs' ys' c' => o = .SUB ∧ Digits xs' ∧ Digits ys' ∧ c' ∈ carries ∧
      rowVal ys' + c'.val ≤ rowVal xs') ?_ ?_ n .SUB xs ys c ⟨rfl, hx, hy, hc, hle⟩
  · intro m o xs' ys' c' hI
    obtain ⟨ho, hx', hy', hc', hle'⟩ := hI
    subst ho
    refine List.mem_filter.mpr ⟨sub_grid_in_V _ (hd_mem_db hx') _ (hd_mem_db hy') c' hc', ?_⟩
    apply decide_eq_true
    show hd xs' ≠ .blank ∨ (c' = .blank ∧ (hd ys' = .d0 ∨ hd ys' = .blank))
    by_cases ha : hd xs' = .blank
    · right
      have e := eq_nil_of_hd_blank hx' ha
      subst e
      have h0 : rowVal ([] : List Cell) = 0 := rfl
      rw [h0] at hle'
      refine ⟨?_, hd_of_val_zero ys' hy' (by omega)⟩
      rcases mem_carries hc' with e | e
      · exact e
      · subst e
        have : Cell.d1.val = 1 := rfl
        omega
    · exact Or.inl ha
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
      omega

theorem sub_ge_sound (xs ys : List Cell) (hx : Digits xs) (hy : Digits ys) (hle : rowVal ys ≤ rowVal xs) :
    ∀ p ∈ subTrace refStep xs ys, p.1 ∈ V_SUBGE :=
  sub_ge_closed _ xs ys .blank hx hy (by decide) (by have : Cell.blank.val = 0 := rfl; omega)

/-! ### Signs -/

def signs : List Cell := [.plus, .minus]

theorem mem_signs {s : Cell} : s ∈ signs → s = .plus ∨ s = .minus := by
  cases s <;> decide

theorem SNum.sign_mem {a : SNum} (h : a.WF) : a.1 ∈ signs := by
  rcases h.1 with e | e <;> rw [e] <;> decide

/-- `SGN-` reads `a − b` as `a + (−b)`: the sign of `b` flipped. -/
def flipSign : Cell → Cell
  | .plus => .minus
  | _ => .plus

/-- The sign the second operand counts with: flipped for a subtraction. -/
def effSign (op : Op) (sb : Cell) : Cell := if op = .SGNSUB then flipSign sb else sb

def addOps : List Op := [.SGNADD, .SGNSUB]

/-- The sign views of an addition or a subtraction. -/
def sgnViews : Op → List View
  | .SGNADD => V_SGNADD
  | .SGNSUB => V_SGNSUB
  | _ => []

theorem sgn_first_mem : ∀ op ∈ addOps, ∀ sa ∈ signs, ∀ sb ∈ signs,
    (⟨op, sa, sb, .blank⟩ : View) ∈ sgnViews op := by decide +kernel

/-- The reference sign step when the signs agree: the result takes `a`'s sign; add. -/
theorem sgn_same : ∀ op ∈ addOps, ∀ sa ∈ signs, ∀ sb ∈ signs, sa = effSign op sb →
    refStep ⟨op, sa, sb, .blank⟩ = ⟨sa, .blank, .ADD⟩ := by decide +kernel

/-- When they differ: compare first; then `=` gives `+` and `SUB`, `>` gives `a`'s sign and
`SUB`, `<` gives `b`'s (effective) sign and `SWAP`. -/
theorem sgn_diff : ∀ op ∈ addOps, ∀ sa ∈ signs, ∀ sb ∈ signs, sa ≠ effSign op sb →
    refStep ⟨op, sa, sb, .blank⟩ = ⟨.blank, .blank, .CMP⟩ ∧
    refStep ⟨op, sa, sb, .less⟩ = ⟨effSign op sb, .blank, .SWAP⟩ ∧
    refStep ⟨op, sa, sb, .equal⟩ = ⟨.plus, .blank, .SUB⟩ ∧
    refStep ⟨op, sa, sb, .greater⟩ = ⟨sa, .blank, .SUB⟩ ∧
    (⟨op, sa, sb, .less⟩ : View) ∈ sgnViews op ∧ (⟨op, sa, sb, .equal⟩ : View) ∈ sgnViews op ∧
    (⟨op, sa, sb, .greater⟩ : View) ∈ sgnViews op := by decide +kernel

theorem effSign_mem : ∀ op ∈ addOps, ∀ sb ∈ signs, effSign op sb ∈ signs := by decide

theorem sgn_mul : ∀ sa ∈ signs, ∀ sb ∈ signs,
    refStep ⟨.SGNMUL, sa, sb, .blank⟩ = ⟨if sa = sb then .plus else .minus, .blank, .MUL⟩ ∧
    (⟨.SGNMUL, sa, sb, .blank⟩ : View) ∈ V_SGNMUL := by decide +kernel

theorem sgn_neg : refStep ⟨.NEG, .plus, .blank, .blank⟩ = ⟨.minus, .blank, .HALT⟩ ∧
    refStep ⟨.NEG, .minus, .blank, .blank⟩ = ⟨.plus, .blank, .HALT⟩ ∧
    (⟨.NEG, .plus, .blank, .blank⟩ : View) ∈ V_NEG ∧ (⟨.NEG, .minus, .blank, .blank⟩ : View) ∈ V_NEG := by
  decide +kernel

/-! ### Signed values -/

theorem val_plus (r : List Cell) : SNum.val (.plus, r) = ((rowVal r : Nat) : Int) := by
  unfold SNum.val
  rw [if_neg (show ¬ ((Cell.plus, r).1 = Cell.minus) from fun h => Cell.noConfusion h)]

theorem val_minus (r : List Cell) : SNum.val (.minus, r) = -((rowVal r : Nat) : Int) := by
  unfold SNum.val
  rw [if_pos (show (Cell.minus, r).1 = Cell.minus from rfl)]

/-- A sign and a magnitude, as an integer. -/
def sval (s : Cell) (m : Nat) : Int := if s = .minus then -(m : Int) else (m : Int)

theorem val_eq_sval (s : Cell) (r : List Cell) : SNum.val (s, r) = sval s (rowVal r) := rfl

theorem sval_plus (m : Nat) : sval .plus m = m := by
  unfold sval; rw [if_neg (show ¬ (Cell.plus = Cell.minus) by decide)]

theorem sval_minus (m : Nat) : sval .minus m = -(m : Int) := by
  unfold sval; rw [if_pos rfl]

/-- What the reference writes for `s·X + t·Y`: a sign and a magnitude. -/
def addRes (s t : Cell) (X Y : Nat) : Cell × Nat :=
  if s = t then (s, X + Y) else if X < Y then (t, Y - X) else if Y < X then (s, X - Y) else (.plus, 0)

theorem addRes_val (s t : Cell) (hs : s ∈ signs) (ht : t ∈ signs) (X Y : Nat) :
    sval (addRes s t X Y).1 (addRes s t X Y).2 = sval s X + sval t Y := by
  unfold addRes
  rcases mem_signs hs with e | e <;> rcases mem_signs ht with f | f <;> subst e <;> subst f
  · rw [if_pos rfl, sval_plus, sval_plus, sval_plus]; omega
  · rw [if_neg (show ¬ (Cell.plus = Cell.minus) by decide)]
    by_cases h1 : X < Y
    · rw [if_pos h1, sval_minus, sval_plus, sval_minus]; omega
    · rw [if_neg h1]
      by_cases h2 : Y < X
      · rw [if_pos h2, sval_plus, sval_plus, sval_minus]; omega
      · rw [if_neg h2, sval_plus, sval_plus, sval_minus]; omega
  · rw [if_neg (show ¬ (Cell.minus = Cell.plus) by decide)]
    by_cases h1 : X < Y
    · rw [if_pos h1, sval_plus, sval_minus, sval_plus]; omega
    · rw [if_neg h1]
      by_cases h2 : Y < X
      · rw [if_pos h2, sval_minus, sval_minus, sval_plus]; omega
      · rw [if_neg h2, sval_plus, sval_minus, sval_plus]; omega
  · rw [if_pos rfl, sval_minus, sval_minus, sval_minus]; omega

/-- A zero result is written with `+` when the operands' zeros are. -/
theorem addRes_zero (s t : Cell) (X Y : Nat) (hs : X = 0 → s = .plus) :
    (addRes s t X Y).2 = 0 → (addRes s t X Y).1 = .plus := by
  unfold addRes
  by_cases h0 : s = t
  · rw [if_pos h0]; intro h; exact hs (by show X = 0; have : X + Y = 0 := h; omega)
  · rw [if_neg h0]
    by_cases h1 : X < Y
    · rw [if_pos h1]; intro h; have : Y - X = 0 := h; omega
    · rw [if_neg h1]
      by_cases h2 : Y < X
      · rw [if_pos h2]; intro h; have : X - Y = 0 := h; omega
      · rw [if_neg h2]; intro _; rfl

/-! ### Signed addition and subtraction: the program -/

/-- The result of a signed procedure: the sign a step wrote, the canonical digits of a scan. -/
def signRow (sg : Cell) (t : List (View × Step)) : Prog SNum := done (sg, canon (rowOf t))

/-- After the comparison: `SWAP` subtracts `|a|` from `|b|`, else `|b|` from `|a|`. -/
def sgnSubK (a b : SNum) (s : Step) : Prog SNum :=
  if s.next = .SWAP then (rowsP .SUB b.2 a.2).bind (signRow s.sym)
  else (rowsP .SUB a.2 b.2).bind (signRow s.sym)

/-- The second sign view reads the comparison flag. -/
def sgnCmpK (op : Op) (a b : SNum) (fl : Cell) : Prog SNum := ask ⟨op, a.1, b.1, fl⟩ (sgnSubK a b)

/-- After the first sign view: `ADD` adds the magnitudes, else compare them. -/
def sgnAddK (op : Op) (a b : SNum) (s : Step) : Prog SNum :=
  if s.next = .ADD then (rowsP .ADD a.2 b.2).bind (signRow s.sym)
  else (compareP a.2 b.2).bind (sgnCmpK op a b)

/-- `signed_add` (`op = SGNADD`: a + b; `op = SGNSUB`: a − b). -/
def sgnAddP (op : Op) (a b : SNum) : Prog SNum := ask ⟨op, a.1, b.1, .blank⟩ (sgnAddK op a b)

theorem signRow_out (f : Stepper) (sg : Cell) (t : List (View × Step)) :
    out f (signRow sg t) = (sg, canon (rowOf t)) := rfl

theorem signRow_log (f : Stepper) (sg : Cell) (t : List (View × Step)) : log f (signRow sg t) = [] := rfl

theorem sgnAddP_add (f : Stepper) (op : Op) (a b : SNum)
    (h : (f ⟨op, a.1, b.1, .blank⟩).next = .ADD) :
    out f (sgnAddP op a b) = ((f ⟨op, a.1, b.1, .blank⟩).sym, canon (rowOf (rowsTrace f .ADD a.2 b.2))) ∧
    log f (sgnAddP op a b) =
      (⟨op, a.1, b.1, .blank⟩, f ⟨op, a.1, b.1, .blank⟩) :: rowsTrace f .ADD a.2 b.2 := by
  unfold sgnAddP
  rw [out_ask, log_ask, sgnAddK, if_pos h, out_bind, log_bind, signRow_out, signRow_log, rowsP_out,
    rowsP_log, List.append_nil]
  exact ⟨rfl, rfl⟩

theorem sgnAddP_cmp (f : Stepper) (op : Op) (a b : SNum)
    (h : (f ⟨op, a.1, b.1, .blank⟩).next ≠ .ADD) :
    out f (sgnAddP op a b) = out f (sgnCmpK op a b (out f (compareP a.2 b.2))) ∧
    log f (sgnAddP op a b) = (⟨op, a.1, b.1, .blank⟩, f ⟨op, a.1, b.1, .blank⟩) ::
      (log f (compareP a.2 b.2) ++ log f (sgnCmpK op a b (out f (compareP a.2 b.2)))) := by
  unfold sgnAddP
  rw [out_ask, log_ask, sgnAddK, if_neg h, out_bind, log_bind]
  exact ⟨rfl, rfl⟩

theorem sgnCmpK_sub (f : Stepper) (op : Op) (a b : SNum) (fl : Cell)
    (h : (f ⟨op, a.1, b.1, fl⟩).next ≠ .SWAP) :
    out f (sgnCmpK op a b fl) = ((f ⟨op, a.1, b.1, fl⟩).sym, canon (rowOf (rowsTrace f .SUB a.2 b.2))) ∧
    log f (sgnCmpK op a b fl) = (⟨op, a.1, b.1, fl⟩, f ⟨op, a.1, b.1, fl⟩) :: rowsTrace f .SUB a.2 b.2 := by
  unfold sgnCmpK
  rw [out_ask, log_ask, sgnSubK, if_neg h, out_bind, log_bind, signRow_out, signRow_log, rowsP_out,
    rowsP_log, List.append_nil]
  exact ⟨rfl, rfl⟩

theorem sgnCmpK_swap (f : Stepper) (op : Op) (a b : SNum) (fl : Cell)
    (h : (f ⟨op, a.1, b.1, fl⟩).next = .SWAP) :
    out f (sgnCmpK op a b fl) = ((f ⟨op, a.1, b.1, fl⟩).sym, canon (rowOf (rowsTrace f .SUB b.2 a.2))) ∧
    log f (sgnCmpK op a b fl) = (⟨op, a.1, b.1, fl⟩, f ⟨op, a.1, b.1, fl⟩) :: rowsTrace f .SUB b.2 a.2 := by
  unfold sgnCmpK
  rw [out_ask, log_ask, sgnSubK, if_pos h, out_bind, log_bind, signRow_out, signRow_log, rowsP_out,
    rowsP_log, List.append_nil]
  exact ⟨rfl, rfl⟩

/-! ### Signed addition and subtraction: the reference run -/

/-- The views of a signed addition (`op = SGNADD`) or subtraction (`op = SGNSUB`): its 10 sign
views, the 242 `ADD` views, the 363 comparison views and the 222 `SUB` views of `V_SUBGE`. -/
def VSADD (op : Op) (v : View) : Prop :=
  v ∈ sgnViews op ∨ v ∈ V_ADD ∨ v ∈ V_CMP ∨ v ∈ V_SUBGE

/-- The reference run after the comparison, when the signs differ: its result and its views. -/
theorem sgnCmpK_ref (op : Op) (hop : op ∈ addOps) (a b : SNum) (ha : a.WF) (hb : b.WF)
    (hd : a.1 ≠ effSign op b.1) :
    (out refStep (sgnCmpK op a b (cmpCell (rowVal a.2) (rowVal b.2)))).1 =
      (addRes a.1 (effSign op b.1) (rowVal a.2) (rowVal b.2)).1 ∧
    rowVal (out refStep (sgnCmpK op a b (cmpCell (rowVal a.2) (rowVal b.2)))).2 =
      (addRes a.1 (effSign op b.1) (rowVal a.2) (rowVal b.2)).2 ∧
    Digits (out refStep (sgnCmpK op a b (cmpCell (rowVal a.2) (rowVal b.2)))).2 ∧
    ∀ x ∈ log refStep (sgnCmpK op a b (cmpCell (rowVal a.2) (rowVal b.2))), VSADD op x.1 := by
  obtain ⟨_, hlt, heq, hgt, mlt, meq, mgt⟩ := sgn_diff op hop a.1 (SNum.sign_mem ha) b.1 (SNum.sign_mem hb) hd
  have hx := ha.2
  have hy := hb.2
  have hres : ∀ X Y : Nat, addRes a.1 (effSign op b.1) X Y =
      if X < Y then (effSign op b.1, Y - X) else if Y < X then (a.1, X - Y) else (.plus, 0) := by
    intro X Y
    unfold addRes
    rw [if_neg hd]
  rw [hres]
  unfold cmpCell
  by_cases h1 : rowVal a.2 < rowVal b.2
  · rw [if_pos h1, if_pos h1]
    have hs : (refStep ⟨op, a.1, b.1, .less⟩).next = .SWAP := by rw [hlt]
    obtain ⟨o1, l1⟩ := sgnCmpK_swap refStep op a b .less hs
    obtain ⟨r1, r2, _⟩ := sub_ge b.2 a.2 hy hx (Nat.le_of_lt h1)
    rw [o1, l1, hlt]
    refine ⟨rfl, ?_, canon_digits _ r2, ?_⟩
    · show rowVal (canon (rowOf (subTrace refStep b.2 a.2))) = _
      rw [canon_val, r1]
    · intro x hx'
      rcases List.mem_cons.mp hx' with e | e
      · subst e; exact Or.inl mlt
      · exact Or.inr (Or.inr (Or.inr (sub_ge_sound b.2 a.2 hy hx (Nat.le_of_lt h1) x e)))
  · rw [if_neg h1, if_neg h1]
    have hle : rowVal b.2 ≤ rowVal a.2 := by omega
    obtain ⟨r1, r2, _⟩ := sub_ge a.2 b.2 hx hy hle
    by_cases h2 : rowVal b.2 < rowVal a.2
    · rw [if_pos h2, if_pos h2]
      have hs : (refStep ⟨op, a.1, b.1, .greater⟩).next ≠ .SWAP := by rw [hgt]; intro h; cases h
      obtain ⟨o1, l1⟩ := sgnCmpK_sub refStep op a b .greater hs
      rw [o1, l1, hgt]
      refine ⟨rfl, ?_, canon_digits _ r2, ?_⟩
      · show rowVal (canon (rowOf (subTrace refStep a.2 b.2))) = _
        rw [canon_val, r1]
      · intro x hx'
        rcases List.mem_cons.mp hx' with e | e
        · subst e; exact Or.inl mgt
        · exact Or.inr (Or.inr (Or.inr (sub_ge_sound a.2 b.2 hx hy hle x e)))
    · rw [if_neg h2, if_neg h2]
      have hs : (refStep ⟨op, a.1, b.1, .equal⟩).next ≠ .SWAP := by rw [heq]; decide
      obtain ⟨o1, l1⟩ := sgnCmpK_sub refStep op a b .equal hs
      rw [o1, l1, heq]
      refine ⟨rfl, ?_, canon_digits _ r2, ?_⟩
      · show rowVal (canon (rowOf (subTrace refStep a.2 b.2))) = _
        rw [canon_val, r1]
        omega
      · intro x hx'
        rcases List.mem_cons.mp hx' with e | e
        · subst e; exact Or.inl meq
        · exact Or.inr (Or.inr (Or.inr (sub_ge_sound a.2 b.2 hx hy hle x e)))

/-- The reference run of a signed addition or subtraction: it writes the sign and magnitude of
`addRes`, a digit row, and presents only views of `VSADD op`. -/
theorem sgnAdd_ref (op : Op) (hop : op ∈ addOps) (a b : SNum) (ha : a.WF) (hb : b.WF) :
    (out refStep (sgnAddP op a b)).1 = (addRes a.1 (effSign op b.1) (rowVal a.2) (rowVal b.2)).1 ∧
    rowVal (out refStep (sgnAddP op a b)).2 = (addRes a.1 (effSign op b.1) (rowVal a.2) (rowVal b.2)).2 ∧
    Digits (out refStep (sgnAddP op a b)).2 ∧
    ∀ x ∈ log refStep (sgnAddP op a b), VSADD op x.1 := by
  have hsa := SNum.sign_mem ha
  have hsb := SNum.sign_mem hb
  have hfirst : (⟨op, a.1, b.1, .blank⟩ : View) ∈ sgnViews op := sgn_first_mem op hop a.1 hsa b.1 hsb
  by_cases hs : a.1 = effSign op b.1
  · have hstep := sgn_same op hop a.1 hsa b.1 hsb hs
    obtain ⟨o1, l1⟩ := sgnAddP_add refStep op a b (by rw [hstep])
    obtain ⟨v1, d1, _⟩ := add_correct a.2 b.2 ha.2 hb.2
    rw [o1, l1, hstep]
    unfold addRes
    rw [if_pos hs]
    refine ⟨rfl, ?_, canon_digits _ d1, ?_⟩
    · show rowVal (canon (rowOf (addTrace refStep a.2 b.2))) = _
      rw [canon_val, v1]
    · intro x hx
      rcases List.mem_cons.mp hx with e | e
      · subst e; exact Or.inl hfirst
      · exact Or.inr (Or.inl (add_sound a.2 b.2 ha.2 hb.2 x e))
  · have hstep := (sgn_diff op hop a.1 hsa b.1 hsb hs).1
    have hne : (refStep ⟨op, a.1, b.1, .blank⟩).next ≠ .ADD := by rw [hstep]; decide
    obtain ⟨o1, l1⟩ := sgnAddP_cmp refStep op a b hne
    rw [compare_correct a.2 b.2 ha.2 hb.2] at o1 l1
    obtain ⟨s1, s2, s3, s4⟩ := sgnCmpK_ref op hop a b ha hb hs
    rw [o1, l1]
    refine ⟨s1, s2, s3, ?_⟩
    intro x hx
    rcases List.mem_cons.mp hx with e | e
    · subst e; exact Or.inl hfirst
    · rcases List.mem_append.mp e with e' | e'
      · exact Or.inr (Or.inr (Or.inl (compare_closed a.2 b.2 ha.2 hb.2 x e')))
      · exact s4 x e'

/-! ### Signed addition and subtraction: correctness and reduction -/

/-- A signed number whose zero is written `+0` (as the runtime writes a problem's operands). -/
def SNum.Normal (n : SNum) : Prop := rowVal n.2 = 0 → n.1 = .plus

theorem sgnAdd_correct (op : Op) (hop : op ∈ addOps) (a b : SNum) (ha : a.WF) (hb : b.WF) :
    (out refStep (sgnAddP op a b)).WF ∧
    (out refStep (sgnAddP op a b)).val = a.val + SNum.val (effSign op b.1, b.2) ∧
    (a.Normal → (out refStep (sgnAddP op a b)).Normal) := by
  obtain ⟨r1, r2, r3, _⟩ := sgnAdd_ref op hop a b ha hb
  have hsa := SNum.sign_mem ha
  have hsb := effSign_mem op hop b.1 (SNum.sign_mem hb)
  refine ⟨⟨?_, r3⟩, ?_, ?_⟩
  · rw [r1]
    unfold addRes
    by_cases h0 : a.1 = effSign op b.1
    · rw [if_pos h0]; exact mem_signs hsa
    · rw [if_neg h0]
      by_cases h1 : rowVal a.2 < rowVal b.2
      · rw [if_pos h1]; exact mem_signs hsb
      · rw [if_neg h1]
        by_cases h2 : rowVal b.2 < rowVal a.2
        · rw [if_pos h2]; exact mem_signs hsa
        · rw [if_neg h2]; exact Or.inl rfl
  · have e : SNum.val (out refStep (sgnAddP op a b)) =
        sval (out refStep (sgnAddP op a b)).1 (rowVal (out refStep (sgnAddP op a b)).2) := rfl
    rw [e, r1, r2, addRes_val _ _ hsa hsb]
    rfl
  · intro hn h0
    have h0' : (addRes a.1 (effSign op b.1) (rowVal a.2) (rowVal b.2)).2 = 0 := by rw [← r2]; exact h0
    rw [r1]
    exact addRes_zero _ _ _ _ hn h0'

theorem effSign_add (sb : Cell) : effSign .SGNADD sb = sb := by
  unfold effSign; rw [if_neg (show ¬ (Op.SGNADD = Op.SGNSUB) by decide)]

theorem effSign_sub_val (sb : Cell) (hsb : sb ∈ signs) (ys : List Cell) :
    SNum.val (effSign .SGNSUB sb, ys) = -SNum.val (sb, ys) := by
  unfold effSign
  rw [if_pos rfl]
  rcases mem_signs hsb with e | e <;> subst e
  · show SNum.val (.minus, ys) = -SNum.val (.plus, ys)
    rw [val_minus, val_plus]
  · show SNum.val (.plus, ys) = -SNum.val (.minus, ys)
    rw [val_minus, val_plus, Int.neg_neg]

/-- **Correctness (signed addition).** For signed numbers `a`, `b` (sign `+` or `-`, digit rows
of any lengths), the reference signed addition writes a signed number denoting `a + b`; when the
zeros of `a` and `b` are written `+0`, so is a zero sum. -/
theorem signed_add_correct (a b : SNum) (ha : a.WF) (hb : b.WF) :
    (out refStep (sgnAddP .SGNADD a b)).WF ∧
    (out refStep (sgnAddP .SGNADD a b)).val = a.val + b.val ∧
    (a.Normal → b.Normal → (out refStep (sgnAddP .SGNADD a b)).Normal) := by
  obtain ⟨h1, h2, h3⟩ := sgnAdd_correct .SGNADD (by decide) a b ha hb
  refine ⟨h1, ?_, fun hn _ => h3 hn⟩
  rw [h2, effSign_add]

/-- **Correctness (signed subtraction).** The reference signed subtraction writes a signed number
denoting `a − b`; when the zeros of `a` and `b` are written `+0`, so is a zero difference. -/
theorem signed_sub_correct (a b : SNum) (ha : a.WF) (hb : b.WF) :
    (out refStep (sgnAddP .SGNSUB a b)).WF ∧
    (out refStep (sgnAddP .SGNSUB a b)).val = a.val - b.val ∧
    (a.Normal → b.Normal → (out refStep (sgnAddP .SGNSUB a b)).Normal) := by
  obtain ⟨h1, h2, h3⟩ := sgnAdd_correct .SGNSUB (by decide) a b ha hb
  refine ⟨h1, ?_, fun hn _ => h3 hn⟩
  rw [h2, effSign_sub_val b.1 (SNum.sign_mem hb) b.2, Int.sub_eq_add_neg]

/-- A signed number as a Boolean check (for the generated witnesses). -/
def SNum.wfb (n : SNum) : Bool := (decide (n.1 = .plus) || decide (n.1 = .minus)) && allDigits n.2

theorem SNum.wf_of_wfb (n : SNum) (h : n.wfb = true) : n.WF := by
  unfold SNum.wfb at h
  cases h1 : decide (n.1 = .plus) <;> cases h2 : decide (n.1 = .minus) <;>
    cases h3 : allDigits n.2 <;> rw [h1, h2, h3] at h <;> simp at h
  all_goals first
    | exact ⟨Or.inl (of_decide_eq_true h1), h3⟩
    | exact ⟨Or.inr (of_decide_eq_true h2), h3⟩

theorem W_SGNADD_fst : W_SGNADD.map Prod.fst = V_SGNADD := by decide +kernel
theorem W_SGNSUB_fst : W_SGNSUB.map Prod.fst = V_SGNSUB := by decide +kernel
theorem W_SUBGE_fst : W_SUBGE.map Prod.fst = V_SUBGE := by decide +kernel

theorem W_SGNADD_ok : ∀ w ∈ W_SGNADD, (SNum.wfb w.2.1 = true ∧ SNum.wfb w.2.2 = true) ∧
    w.1 ∈ Prog.views refStep (sgnAddP .SGNADD w.2.1 w.2.2) := by decide +kernel

theorem W_SGNSUB_ok : ∀ w ∈ W_SGNSUB, (SNum.wfb w.2.1 = true ∧ SNum.wfb w.2.2 = true) ∧
    w.1 ∈ Prog.views refStep (sgnAddP .SGNSUB w.2.1 w.2.2) := by decide +kernel

theorem W_SUBGE_ok : ∀ w ∈ W_SUBGE, allDigits w.2.1 = true ∧ allDigits w.2.2 = true ∧
    rowVal w.2.2 ≤ rowVal w.2.1 ∧ w.1 ∈ (subTrace refStep w.2.1 w.2.2).map Prod.fst := by
  decide +kernel

/-- The sign of `b` that makes the signs agree (`ADD`), resp. differ (`CMP`), given `a = +`. -/
def sameFor (op : Op) : Cell := if op = .SGNSUB then .minus else .plus
def diffFor (op : Op) : Cell := if op = .SGNSUB then .plus else .minus

theorem sameFor_ok : ∀ op ∈ addOps, Cell.plus = effSign op (sameFor op) ∧ sameFor op ∈ signs := by
  decide
theorem diffFor_ok : ∀ op ∈ addOps, Cell.plus ≠ effSign op (diffFor op) ∧ diffFor op ∈ signs := by
  decide

/-- Every view of `VSADD op` is presented by a reference run on some well-formed operands. -/
theorem sgnAdd_wit (op : Op) (hop : op ∈ addOps) (W : List (View × SNum × SNum))
    (hW : W.map Prod.fst = sgnViews op)
    (hok : ∀ w ∈ W, (SNum.wfb w.2.1 = true ∧ SNum.wfb w.2.2 = true) ∧
      w.1 ∈ Prog.views refStep (sgnAddP op w.2.1 w.2.2)) :
    ∀ v, VSADD op v → ∃ i : SNum × SNum, (i.1.WF ∧ i.2.WF) ∧ v ∈ Prog.views refStep (sgnAddP op i.1 i.2) := by
  intro v hv
  have hplus : (Cell.plus) ∈ signs := by decide
  rcases hv with h | h | h | h
  · rw [← hW] at h
    obtain ⟨w, hw, rfl⟩ := List.mem_map.mp h
    obtain ⟨⟨h1, h2⟩, h3⟩ := hok w hw
    exact ⟨w.2, ⟨SNum.wf_of_wfb _ h1, SNum.wf_of_wfb _ h2⟩, h3⟩
  · -- an ADD view: the witness rows of `W_ADD`, with signs that agree
    rw [← W_ADD_fst] at h
    obtain ⟨w, hw, rfl⟩ := List.mem_map.mp h
    obtain ⟨hx, hy, hpres⟩ := W_ADD_ok w hw
    obtain ⟨hsame, hsm⟩ := sameFor_ok op hop
    have ha : SNum.WF (.plus, w.2.1) := ⟨Or.inl rfl, hx⟩
    have hb : SNum.WF (sameFor op, w.2.2) := ⟨mem_signs hsm, hy⟩
    refine ⟨((.plus, w.2.1), (sameFor op, w.2.2)), ⟨ha, hb⟩, ?_⟩
    have hstep := sgn_same op hop .plus hplus (sameFor op) hsm hsame
    rw [Prog.views, (sgnAddP_add refStep op (.plus, w.2.1) (sameFor op, w.2.2) (by rw [hstep])).2]
    exact List.mem_cons_of_mem _ hpres
  · -- a comparison view: the witness rows of `W_CMP`, with signs that differ
    rw [← W_CMP_fst] at h
    obtain ⟨w, hw, rfl⟩ := List.mem_map.mp h
    obtain ⟨hx, hy, hpres⟩ := W_CMP_ok w hw
    obtain ⟨hdiff, hdm⟩ := diffFor_ok op hop
    have ha : SNum.WF (.plus, w.2.1) := ⟨Or.inl rfl, hx⟩
    have hb : SNum.WF (diffFor op, w.2.2) := ⟨mem_signs hdm, hy⟩
    refine ⟨((.plus, w.2.1), (diffFor op, w.2.2)), ⟨ha, hb⟩, ?_⟩
    have hstep := (sgn_diff op hop .plus hplus (diffFor op) hdm hdiff).1
    rw [Prog.views, (sgnAddP_cmp refStep op (.plus, w.2.1) (diffFor op, w.2.2) (by rw [hstep]; decide)).2,
      List.map_cons, List.map_append]
    exact List.mem_cons_of_mem _ (List.mem_append_left _ hpres)
  · -- a SUB view: the witness rows of `W_SUBGE` (`ys ≤ xs`), with signs that differ
    rw [← W_SUBGE_fst] at h
    obtain ⟨w, hw, rfl⟩ := List.mem_map.mp h
    obtain ⟨hx, hy, hle, hpres⟩ := W_SUBGE_ok w hw
    obtain ⟨hdiff, hdm⟩ := diffFor_ok op hop
    have ha : SNum.WF (.plus, w.2.1) := ⟨Or.inl rfl, hx⟩
    have hb : SNum.WF (diffFor op, w.2.2) := ⟨mem_signs hdm, hy⟩
    refine ⟨((.plus, w.2.1), (diffFor op, w.2.2)), ⟨ha, hb⟩, ?_⟩
    obtain ⟨_, _, heq, hgt, _⟩ := sgn_diff op hop .plus hplus (diffFor op) hdm hdiff
    have hstep := (sgn_diff op hop .plus hplus (diffFor op) hdm hdiff).1
    rw [Prog.views, (sgnAddP_cmp refStep op (.plus, w.2.1) (diffFor op, w.2.2) (by rw [hstep]; decide)).2,
      compare_correct w.2.1 w.2.2 hx hy]
    have hfl : cmpCell (rowVal w.2.1) (rowVal w.2.2) = .equal ∨
        cmpCell (rowVal w.2.1) (rowVal w.2.2) = .greater := by
      unfold cmpCell
      rw [if_neg (show ¬ (rowVal w.2.1 < rowVal w.2.2) by omega)]
      by_cases h2 : rowVal w.2.2 < rowVal w.2.1
      · rw [if_pos h2]; exact Or.inr rfl
      · rw [if_neg h2]; exact Or.inl rfl
    have hsub : (refStep ⟨op, Cell.plus, diffFor op, cmpCell (rowVal w.2.1) (rowVal w.2.2)⟩).next ≠ .SWAP := by
      rcases hfl with e | e <;> rw [e]
      · rw [heq]; decide
      · rw [hgt]; decide
    rw [(sgnCmpK_sub refStep op (.plus, w.2.1) (diffFor op, w.2.2) _ hsub).2, List.map_cons,
      List.map_append, List.map_cons]
    exact List.mem_cons_of_mem _ (List.mem_append_right _ (List.mem_cons_of_mem _ hpres))

/-- **Reduction (signed addition).** A stepper runs every signed addition of every length
exactly as the reference iff it agrees with the reference on the 837 views of `VSADD .SGNADD`
(the 10 `SGN+` views, the 242 `ADD` views, the 363 comparison views, the 222 `SUB` views of
`V_SUBGE`). -/
theorem reduction_signed_add (f : Stepper) :
    (∀ v, VSADD .SGNADD v → f v = refStep v) ↔
      ∀ a b : SNum, a.WF → b.WF → steps f (sgnAddP .SGNADD a b) = steps refStep (sgnAddP .SGNADD a b) := by
  have h := reduction_of (fun i : SNum × SNum => sgnAddP .SGNADD i.1 i.2) (fun i => i.1.WF ∧ i.2.WF)
    (VSADD .SGNADD) (fun i hi => (sgnAdd_ref .SGNADD (by decide) i.1 i.2 hi.1 hi.2).2.2.2)
    (sgnAdd_wit .SGNADD (by decide) W_SGNADD W_SGNADD_fst W_SGNADD_ok) f
  constructor
  · intro hf a b ha hb; exact h.mp hf (a, b) ⟨ha, hb⟩
  · intro hr; exact h.mpr (fun i hi => hr i.1 i.2 hi.1 hi.2)

/-- **Reduction (signed subtraction).** The same with the 10 `SGN-` views (`VSADD .SGNSUB`). -/
theorem reduction_signed_sub (f : Stepper) :
    (∀ v, VSADD .SGNSUB v → f v = refStep v) ↔
      ∀ a b : SNum, a.WF → b.WF → steps f (sgnAddP .SGNSUB a b) = steps refStep (sgnAddP .SGNSUB a b) := by
  have h := reduction_of (fun i : SNum × SNum => sgnAddP .SGNSUB i.1 i.2) (fun i => i.1.WF ∧ i.2.WF)
    (VSADD .SGNSUB) (fun i hi => (sgnAdd_ref .SGNSUB (by decide) i.1 i.2 hi.1 hi.2).2.2.2)
    (sgnAdd_wit .SGNSUB (by decide) W_SGNSUB W_SGNSUB_fst W_SGNSUB_ok) f
  constructor
  · intro hf a b ha hb; exact h.mp hf (a, b) ⟨ha, hb⟩
  · intro hr; exact h.mpr (fun i hi => hr i.1 i.2 hi.1 hi.2)

/-! ### Negation -/

def negK (a : SNum) (s : Step) : Prog SNum := done (s.sym, a.2)

/-- `negate`: one `NEG` view; the digits are `a`'s own cells (shared, nothing written). -/
def negP (a : SNum) : Prog SNum := ask ⟨.NEG, a.1, .blank, .blank⟩ (negK a)

theorem negP_eq (f : Stepper) (a : SNum) :
    out f (negP a) = ((f ⟨.NEG, a.1, .blank, .blank⟩).sym, a.2) ∧
    log f (negP a) = [(⟨.NEG, a.1, .blank, .blank⟩, f ⟨.NEG, a.1, .blank, .blank⟩)] := ⟨rfl, rfl⟩

/-- **Correctness (negation).** The reference negation writes a signed number denoting `−a`
(a zero is written `-0` when it was `+0`, as Python does; it denotes 0). -/
theorem neg_correct (a : SNum) (ha : a.WF) :
    (out refStep (negP a)).WF ∧ (out refStep (negP a)).val = -a.val := by
  rw [(negP_eq refStep a).1]
  obtain ⟨n1, n2, _, _⟩ := sgn_neg
  rcases ha.1 with e | e
  · rw [e, n1]
    refine ⟨⟨Or.inr rfl, ha.2⟩, ?_⟩
    show SNum.val (.minus, a.2) = -SNum.val a
    rw [show a = (Cell.plus, a.2) from Prod.ext e rfl, val_minus, val_plus]
  · rw [e, n2]
    refine ⟨⟨Or.inl rfl, ha.2⟩, ?_⟩
    show SNum.val (.plus, a.2) = -SNum.val a
    rw [show a = (Cell.minus, a.2) from Prod.ext e rfl, val_minus, val_plus, Int.neg_neg]

theorem neg_closed (a : SNum) (ha : a.WF) : ∀ x ∈ log refStep (negP a), x.1 ∈ V_NEG := by
  rw [(negP_eq refStep a).2]
  intro x hx
  rw [List.mem_singleton] at hx
  subst hx
  obtain ⟨_, _, m1, m2⟩ := sgn_neg
  rcases ha.1 with e | e <;> rw [e]
  · exact m1
  · exact m2

theorem W_NEG_fst : W_NEG.map Prod.fst = V_NEG := by decide +kernel

theorem W_NEG_ok : ∀ w ∈ W_NEG, SNum.wfb w.2 = true ∧ w.1 ∈ Prog.views refStep (negP w.2) := by
  decide +kernel

/-- **Reduction (negation).** A stepper negates every signed number of every length exactly as
the reference iff it agrees with the reference on the 2 `NEG` views of V. -/
theorem reduction_neg (f : Stepper) :
    (∀ v ∈ V_NEG, f v = refStep v) ↔ ∀ a : SNum, a.WF → steps f (negP a) = steps refStep (negP a) :=
  reduction_of negP SNum.WF (fun v => v ∈ V_NEG) neg_closed
    (fun v hv => by
      rw [← W_NEG_fst] at hv
      exact wit_of_list _ _ W_NEG
        (fun w hw => ⟨SNum.wf_of_wfb _ (W_NEG_ok w hw).1, (W_NEG_ok w hw).2⟩) v hv) f

/-! ### Rows: digits, appending, taking -/

theorem digits_iff : ∀ l : List Cell, Digits l ↔ ∀ x ∈ l, x.isDigit = true
  | [] => ⟨fun _ x hx => (by cases hx), fun _ => digits_nil⟩
  | x :: xs => by
    constructor
    · intro h y hy
      rcases List.mem_cons.mp hy with e | e
      · subst e; exact (digits_cons h).1
      · exact ((digits_iff xs).mp (digits_cons h).2) y e
    · intro h
      exact digits_cons_intro (h x (List.Mem.head _))
        ((digits_iff xs).mpr fun y hy => h y (List.Mem.tail _ hy))

theorem digits_append {l1 l2 : List Cell} (h1 : Digits l1) (h2 : Digits l2) : Digits (l1 ++ l2) := by
  rw [digits_iff] at h1 h2 ⊢
  intro x hx
  rcases List.mem_append.mp hx with e | e
  · exact h1 x e
  · exact h2 x e

theorem digits_take (n : Nat) {l : List Cell} (h : Digits l) : Digits (l.take n) := by
  rw [digits_iff] at h ⊢
  exact fun x hx => h x (List.mem_of_mem_take hx)

theorem digits_drop (n : Nat) {l : List Cell} (h : Digits l) : Digits (l.drop n) := by
  rw [digits_iff] at h ⊢
  exact fun x hx => h x (List.mem_of_mem_drop hx)

theorem digits_reverse {l : List Cell} (h : Digits l) : Digits l.reverse := by
  rw [digits_iff] at h ⊢
  exact fun x hx => h x (List.mem_reverse.mp hx)

theorem rowVal_app : ∀ l1 l2 : List Cell, rowVal (l1 ++ l2) = rowVal l1 + 10 ^ l1.length * rowVal l2
  | [], l2 => by
    show rowVal l2 = 0 + 10 ^ 0 * rowVal l2
    rw [Nat.pow_zero, Nat.one_mul, Nat.zero_add]
  | x :: xs, l2 => by
    show x.val + 10 * rowVal (xs ++ l2) = (x.val + 10 * rowVal xs) + 10 ^ (xs.length + 1) * rowVal l2
    rw [rowVal_app xs l2, Nat.pow_succ, Nat.mul_add, Nat.mul_comm (10 ^ xs.length) 10, Nat.mul_assoc]
    omega

/-- A row below `10^n` keeps its value when cut to `n` cells (`rem[:lb]`). -/
theorem rowVal_take_of_lt : ∀ (n : Nat) (l : List Cell), rowVal l < 10 ^ n → rowVal (l.take n) = rowVal l
  | 0, l, h => by
    rw [Nat.pow_zero] at h
    show rowVal [] = rowVal l
    show 0 = rowVal l
    omega
  | n + 1, [], _ => rfl
  | n + 1, x :: xs, h => by
    show x.val + 10 * rowVal (xs.take n) = x.val + 10 * rowVal xs
    rw [rowVal_cons, Nat.pow_succ] at h
    rw [rowVal_take_of_lt n xs (by omega)]

/-! ### Signed multiplication: the program -/

/-- `add_rows(total, shifted row, start = j)` for each further partial row, as Python runs
them: the total's own cells below column `j`, then the addition of the row to the total's cells
from column `j` on (`rowsP .ADD (total.drop j) r`, Python's limit `max(width) + 2`). -/
def addChainP : Nat → List Cell → List (List Cell) → Prog (List Cell)
  | _, total, [] => done total
  | j, total, r :: rs => (rowsP .ADD (total.drop j) r).bind fun t => addChainP (j + 1) (total.take j ++ rowOf t) rs

/-- The product after its partial rows: the first row is the running total. -/
def mulFinish : List (List Cell) → Prog (List Cell)
  | [] => done []
  | r :: rs => addChainP 1 r rs

/-- `product_rows` (sequential mode) as Python runs it: every partial row `x · d` in lock step
(`together`: round `i` asks column `i` of every row still running), then the rows added one
after another, each from its own column on. -/
def mulP (xs ys : List Cell) : Prog (List Cell) :=
  (roundsP (xs.length + 3) (ys.map (mulRowP xs))).bind fun ps => mulFinish (ps.map fun p => rowOf (Prog.resD [] p))

theorem scanP_log_len (f : Stepper) : ∀ (n : Nat) (op : Op) (xs ys : List Cell) (c : Cell) (cr : Bool),
    (log f (scanP n op xs ys c cr)).length ≤ n
  | 0, _, _, _, _, _ => Nat.le_refl 0
  | n + 1, op, xs, ys, c, cr => by
    cases hs : (f ⟨op, hd xs, hd ys, c⟩).next.isScan with
    | false => rw [(scanP_halt f n op xs ys c cr hs).2]; exact Nat.succ_le_succ (Nat.zero_le _)
    | true =>
      rw [(scanP_cont f n op xs ys c cr hs).2, List.length_cons]
      exact Nat.succ_le_succ (scanP_log_len f n _ _ _ _ cr)

/-- The partial rows run alone: the product is their rows, then the additions. -/
theorem mulP_eq (f : Stepper) (xs ys : List Cell) :
    out f (mulP xs ys) = out f (mulFinish (ys.map fun d => rowOf (mulRowTrace f xs d))) ∧
    (∀ x, x ∈ log f (mulP xs ys) ↔
      (∃ d ∈ ys, x ∈ mulRowTrace f xs d) ∨ x ∈ log f (mulFinish (ys.map fun d => rowOf (mulRowTrace f xs d)))) := by
  have hlen : ∀ p ∈ ys.map (mulRowP xs), (log f p).length ≤ xs.length + 3 := by
    intro p hp
    obtain ⟨d, _, rfl⟩ := List.mem_map.mp hp
    exact scanP_log_len f _ _ _ _ _ _
  obtain ⟨r1, r2⟩ := rounds_run f ([] : List (View × Step)) (xs.length + 3) (ys.map (mulRowP xs)) hlen
  have hrows : (out f (roundsP (xs.length + 3) (ys.map (mulRowP xs)))).map (fun p => rowOf (Prog.resD [] p)) =
      ys.map fun d => rowOf (mulRowTrace f xs d) := by
    have e1 : (out f (roundsP (xs.length + 3) (ys.map (mulRowP xs)))).map (fun p => rowOf (Prog.resD [] p)) =
        ((out f (roundsP (xs.length + 3) (ys.map (mulRowP xs)))).map (Prog.resD [])).map rowOf := by
      rw [List.map_map]; rfl
    rw [e1, r1, List.map_map, List.map_map]
    apply List.map_congr_left
    intro d _
    show rowOf (out f (mulRowP xs d)) = rowOf (mulRowTrace f xs d)
    rw [mulRowP_out]
  unfold mulP
  rw [out_bind, hrows]
  refine ⟨rfl, fun x => ?_⟩
  rw [log_bind, List.mem_append, r2, hrows]
  constructor
  · rintro (⟨p, hp, hx⟩ | h)
    · obtain ⟨d, hd, rfl⟩ := List.mem_map.mp hp
      exact Or.inl ⟨d, hd, by rw [← mulRowP_log]; exact hx⟩
    · exact Or.inr h
  · rintro (⟨d, hd, hx⟩ | h)
    · exact Or.inl ⟨mulRowP xs d, List.mem_map_of_mem hd, by rw [mulRowP_log]; exact hx⟩
    · exact Or.inr h

def mulSignK (s : Step) (r : List Cell) : Prog SNum := done (s.sym, canon r)

def sgnMulK (a b : SNum) (s : Step) : Prog SNum := (mulP a.2 b.2).bind (mulSignK s)

/-- `signed_mul`: a `SGN*` view (its symbol is the result's sign), then the product of the
magnitudes. -/
def sgnMulP (a b : SNum) : Prog SNum := ask ⟨.SGNMUL, a.1, b.1, .blank⟩ (sgnMulK a b)

theorem sgnMulP_eq (f : Stepper) (a b : SNum) :
    out f (sgnMulP a b) = ((f ⟨.SGNMUL, a.1, b.1, .blank⟩).sym, canon (out f (mulP a.2 b.2))) ∧
    log f (sgnMulP a b) = (⟨.SGNMUL, a.1, b.1, .blank⟩, f ⟨.SGNMUL, a.1, b.1, .blank⟩) :: log f (mulP a.2 b.2) := by
  unfold sgnMulP
  rw [out_ask, log_ask, sgnMulK, out_bind, log_bind]
  exact ⟨rfl, by rw [mulSignK, log_done, List.append_nil]⟩

/-! ### Lengths in a long multiplication (for the exact view set of its additions) -/

theorem pow10_pos : ∀ n : Nat, 0 < 10 ^ n
  | 0 => by decide
  | n + 1 => by
    rw [Nat.pow_succ]
    have := pow10_pos n
    omega

theorem max_eq_or (a b : Nat) : (max a b = a ∧ b ≤ a) ∨ (max a b = b ∧ a ≤ b) := by
  by_cases h : a ≤ b
  · exact Or.inr ⟨Nat.max_eq_right h, h⟩
  · exact Or.inl ⟨Nat.max_eq_left (by omega), by omega⟩

/-- The reference addition writes at most one cell more than its longer operand, and only when
the sum reaches `10^max`. -/
theorem add_len_aux (n : Nat) : ∀ (xs ys : List Cell) (c : Cell),
    Digits xs → Digits ys → c ∈ carries → xs.length + 2 ≤ n → ys.length + 2 ≤ n →
    (rowOf (trace refStep n .ADD xs ys c)).length ≤ max xs.length ys.length + 1 ∧
    ((rowOf (trace refStep n .ADD xs ys c)).length = max xs.length ys.length + 1 →
      10 ^ (max xs.length ys.length) ≤ rowVal xs + rowVal ys + c.val) := by
  induction n with
  | zero => intro xs ys c _ _ _ hnx _; omega
  | succ n ih =>
    intro xs ys c hx hy hc hnx hny
    by_cases hxy : xs = [] ∧ ys = []
    · obtain ⟨rfl, rfl⟩ := hxy
      rcases mem_carries hc with rfl | rfl
      · rw [trace_last refStep n .ADD [] [] .blank ⟨.ADD, .blank, .blank, .blank⟩
          ⟨.blank, .blank, .HALT⟩ rfl add_view_halt rfl]
        refine ⟨?_, ?_⟩ <;> decide
      · obtain ⟨m, rfl⟩ : ∃ m, n = m + 1 := ⟨n - 1, by
          have h0 : ([] : List Cell).length = 0 := rfl
          omega⟩
        rw [trace_step refStep (m + 1) .ADD [] [] .d1 ⟨.ADD, .blank, .blank, .d1⟩
          ⟨.d1, .blank, .ADD⟩ .ADD [] [] .blank rfl add_view_carry rfl rfl rfl rfl rfl,
          trace_last refStep m .ADD [] [] .blank ⟨.ADD, .blank, .blank, .blank⟩
          ⟨.blank, .blank, .HALT⟩ rfl add_view_halt rfl]
        refine ⟨?_, ?_⟩ <;> decide
    · have hne : ¬(hd xs = .blank ∧ hd ys = .blank ∧ c = .blank) := by
        intro ⟨h1, h2, _⟩
        exact hxy ⟨eq_nil_of_hd_blank hx h1, eq_nil_of_hd_blank hy h2⟩
      have hcol := add_col (hd xs) (hd_mem_db hx) (hd ys) (hd_mem_db hy) c hc hne
      have ha9 := Cell.val_le (hd xs)
      have hb9 := Cell.val_le (hd ys)
      have hc1 := carries_val_le hc
      have hlx := len_tl xs
      have hly := len_tl ys
      have hpos : 1 ≤ xs.length ∨ 1 ≤ ys.length := by
        cases xs with
        | nil =>
          cases ys with
          | nil => exact (hxy ⟨rfl, rfl⟩).elim
          | cons y ys' => right; show 1 ≤ ys'.length + 1; omega
        | cons x xs' => left; show 1 ≤ xs'.length + 1; omega
      obtain ⟨ihl, ihp⟩ := ih (tl xs) (tl ys) (Cell.carry (((hd xs).val + (hd ys).val + c.val) / 10))
        (digits_tl hx) (digits_tl hy) (carry_mem_carries _ (by omega)) (by omega) (by omega)
      rw [trace_step refStep n .ADD xs ys c ⟨.ADD, hd xs, hd ys, c⟩ _ .ADD (tl xs) (tl ys)
        (Cell.carry (((hd xs).val + (hd ys).val + c.val) / 10)) rfl hcol rfl rfl rfl rfl rfl,
        rowOf_digit_mod, List.length_cons]
      have hM : max xs.length ys.length = max (tl xs).length (tl ys).length + 1 := by
        rcases max_eq_or xs.length ys.length with ⟨e1, _⟩ | ⟨e1, _⟩ <;>
          rcases max_eq_or (tl xs).length (tl ys).length with ⟨e2, _⟩ | ⟨e2, _⟩ <;> omega
      rw [hM]
      refine ⟨by omega, ?_⟩
      intro hl
      have hp := ihp (by omega)
      have hcv := Cell.val_carry (((hd xs).val + (hd ys).val + c.val) / 10) (by omega)
      rw [hcv] at hp
      rw [Nat.pow_succ, rowVal_hd_tl xs, rowVal_hd_tl ys]
      omega

theorem add_len (xs ys : List Cell) (hx : Digits xs) (hy : Digits ys) :
    (rowOf (addTrace refStep xs ys)).length ≤ max xs.length ys.length + 1 ∧
    ((rowOf (addTrace refStep xs ys)).length = max xs.length ys.length + 1 →
      10 ^ (max xs.length ys.length) ≤ rowVal xs + rowVal ys) := by
  obtain ⟨h1, h2⟩ := add_len_aux (max xs.length ys.length + 3) xs ys .blank hx hy (by decide)
    (by have := Nat.le_max_left xs.length ys.length; omega)
    (by have := Nat.le_max_right xs.length ys.length; omega)
  have e : Cell.blank.val = 0 := rfl
  rw [e, Nat.add_zero] at h2
  exact ⟨h1, h2⟩

/-- A partial-product row has one cell per digit of `x`, plus at most a final carry. -/
theorem mul_row_len_aux (d : Cell) (hd : d.isDigit = true) (n : Nat) : ∀ (xs : List Cell) (c : Cell),
    Digits xs → c ∈ mulCarries → mulOK d c = true → xs.length + 2 ≤ n →
    xs.length ≤ (rowOf (trace refStep n .MUL xs (List.replicate n d) c)).length ∧
    (rowOf (trace refStep n .MUL xs (List.replicate n d) c)).length ≤ xs.length + 1 := by
  have hdm : d ∈ digitCells := Cell.mem_digitCells_of_isDigit d hd
  induction n with
  | zero => intro xs c _ _ _ hn; omega
  | succ n ih =>
    intro xs c hx hc hok hn
    cases xs with
    | nil =>
      by_cases hcb : c = .blank
      · subst hcb
        rw [trace_last refStep n .MUL [] (List.replicate (n + 1) d) .blank ⟨.MUL, .blank, d, .blank⟩
          ⟨.blank, .blank, .HALT⟩ rfl (mul_halt d hdm) rfl]
        rw [rowOf_cons_of_eq (⟨.MUL, .blank, d, .blank⟩, ⟨.blank, .blank, .HALT⟩) [] rfl]
        exact ⟨Nat.zero_le _, Nat.zero_le _⟩
      · obtain ⟨m, rfl⟩ : ∃ m, n = m + 1 := ⟨n - 1, by
          have h0 : ([] : List Cell).length = 0 := rfl
          omega⟩
        rw [trace_step refStep (m + 1) .MUL [] (List.replicate (m + 1 + 1) d) c ⟨.MUL, .blank, d, c⟩
          ⟨c, .blank, .MUL⟩ .MUL [] (List.replicate (m + 1) d) .blank rfl
          (mul_end d hdm c hc hok hcb) rfl rfl rfl rfl rfl,
          trace_last refStep m .MUL [] (List.replicate (m + 1) d) .blank ⟨.MUL, .blank, d, .blank⟩
          ⟨.blank, .blank, .HALT⟩ rfl (mul_halt d hdm) rfl]
        rw [rowOf_cons_of_ne (⟨.MUL, .blank, d, c⟩, ⟨c, .blank, .MUL⟩) _ hcb,
          rowOf_cons_of_eq (⟨.MUL, .blank, d, .blank⟩, ⟨.blank, .blank, .HALT⟩) [] rfl]
        exact ⟨Nat.zero_le _, Nat.le_refl 1⟩
    | cons x xs' =>
      obtain ⟨hxd, hxs'⟩ := digits_cons hx
      have hxdb : x ∈ db := Cell.mem_db_of_isDigit x hxd
      have hxnb : x ≠ .blank := Cell.ne_blank_of_isDigit hxd
      obtain ⟨hcol, hlt, hcm, hok'⟩ := mul_col x hxdb d hdm c hc hok hxnb
      have hlen : xs'.length + 2 ≤ n := by
        have : (x :: xs').length = xs'.length + 1 := rfl
        omega
      obtain ⟨ih1, ih2⟩ := ih xs' (Cell.carry ((x.val * d.val + c.val) / 10)) hxs' hcm hok' hlen
      rw [trace_step refStep n .MUL (x :: xs') (List.replicate (n + 1) d) c ⟨.MUL, x, d, c⟩ _ .MUL xs'
        (List.replicate n d) (Cell.carry ((x.val * d.val + c.val) / 10)) rfl hcol rfl rfl rfl rfl rfl,
        rowOf_digit_mod, List.length_cons, List.length_cons]
      exact ⟨by omega, by omega⟩

theorem mul_row_len (xs : List Cell) (d : Cell) (hx : Digits xs) (hd : d.isDigit = true) :
    xs.length ≤ (rowOf (mulRowTrace refStep xs d)).length ∧
    (rowOf (mulRowTrace refStep xs d)).length ≤ xs.length + 1 :=
  mul_row_len_aux d hd (xs.length + 3) xs .blank hx (by decide) (mulOK_blank d) (by omega)

/-! ### The ADD views of a long multiplication -/

/-- An `ADD` view where the running total is no longer than the shifted row added to it: never a
digit over a blank. -/
def mulAddOK (v : View) : Prop := ¬(v.a ≠ .blank ∧ v.b = .blank)

instance : DecidablePred mulAddOK := fun v =>
  inferInstanceAs (Decidable (¬(v.a ≠ .blank ∧ v.b = .blank)))

/-- The 222 `ADD` views a long multiplication presents. -/
def V_MULADD : List View := V_ADD.filter fun v => decide (mulAddOK v)

theorem add_le_closed (n : Nat) : ∀ (xs ys : List Cell) (c : Cell), Digits xs → Digits ys →
    c ∈ carries → xs.length ≤ ys.length → ∀ p ∈ trace refStep n .ADD xs ys c, p.1 ∈ V_MULADD := by
  intro xs ys c hx hy hc hle
  refine trace_inv refStep (fun v => v ∈ V_MULADD)
    (fun _ o xs' ys' c' => o = .ADD ∧ Digits xs' ∧ Digits ys' ∧ c' ∈ carries ∧
      xs'.length ≤ ys'.length) ?_ ?_ n .ADD xs ys c ⟨rfl, hx, hy, hc, hle⟩
  · intro m o xs' ys' c' hI
    obtain ⟨ho, hx', hy', hc', hle'⟩ := hI
    subst ho
    refine List.mem_filter.mpr ⟨add_grid_in_V _ (hd_mem_db hx') _ (hd_mem_db hy') c' hc',
      decide_eq_true ?_⟩
    show ¬(hd xs' ≠ .blank ∧ hd ys' = .blank)
    intro ⟨h1, h2⟩
    have e := eq_nil_of_hd_blank hy' h2
    subst e
    cases xs' with
    | nil => exact h1 rfl
    | cons x r =>
      have : (x :: r).length = r.length + 1 := rfl
      have h0 : ([] : List Cell).length = 0 := rfl
      omega
  · intro m o xs' ys' c' hI hs
    obtain ⟨ho, hx', hy', hc', hle'⟩ := hI
    subst ho
    obtain ⟨h1, h2⟩ := add_grid_closed _ (hd_mem_db hx') _ (hd_mem_db hy') c' hc' hs
    refine ⟨h1, digits_tl hx', digits_tl hy', h2, ?_⟩
    have := len_tl xs'
    have := len_tl ys'
    omega

/-- An addition to a non-empty row writes at least one cell. -/
theorem add_row_ne (xs ys : List Cell) (hx : Digits xs) (hy : Digits ys) (hne : ys ≠ []) :
    rowOf (addTrace refStep xs ys) ≠ [] := by
  have hyb : hd ys ≠ .blank := fun h => hne (eq_nil_of_hd_blank hy h)
  have hcol := add_col (hd xs) (hd_mem_db hx) (hd ys) (hd_mem_db hy) .blank (by decide) (fun h => hyb h.2.1)
  show rowOf (trace refStep (max xs.length ys.length + 2 + 1) .ADD xs ys .blank) ≠ []
  rw [trace_step refStep (max xs.length ys.length + 2) .ADD xs ys .blank ⟨.ADD, hd xs, hd ys, .blank⟩ _ .ADD
    (tl xs) (tl ys) _ rfl hcol rfl rfl rfl rfl rfl, rowOf_digit_mod]
  exact List.cons_ne_nil _ _

/-- The running total, cut at column `j`: its own cells below, the rest above. -/
theorem rowVal_take_drop (l : List Cell) (j : Nat) :
    rowVal l = rowVal (l.take j) + 10 ^ (l.take j).length * rowVal (l.drop j) := by
  conv => lhs; rw [← List.take_append_drop j l]
  exact rowVal_app _ _

theorem chain_arith (T A X D R : Nat) : T + A * (X * D) + A * 10 * (X * R) = T + A * (X * (D + 10 * R)) := by
  rw [Nat.mul_add X D (10 * R), Nat.mul_add A, Nat.add_assoc, Nat.mul_assoc A 10, Nat.mul_left_comm 10 X R]

/-- One addition of the chain: the total grows by the row, shifted to column `j`. -/
theorem chain_step_val (total r : List Cell) (j : Nat) (ht : Digits total) (hr : Digits r) :
    rowVal (total.take j ++ rowOf (addTrace refStep (total.drop j) r)) =
      rowVal total + 10 ^ (total.take j).length * rowVal r := by
  obtain ⟨va, _, _⟩ := add_correct (total.drop j) r (digits_drop j ht) hr
  rw [rowVal_app, va, Nat.mul_add, ← Nat.add_assoc, ← rowVal_take_drop]

/-- **The additions of a product, as Python runs them**: the value. -/
theorem addChain_val (xs : List Cell) (hx : Digits xs) : ∀ (ds : List Cell) (j : Nat) (total : List Cell),
    Digits ds → Digits total → (xs ≠ [] → j ≤ total.length) →
    rowVal (out refStep (addChainP j total (ds.map fun d => rowOf (mulRowTrace refStep xs d)))) =
        rowVal total + 10 ^ j * (rowVal xs * rowVal ds) ∧
      Digits (out refStep (addChainP j total (ds.map fun d => rowOf (mulRowTrace refStep xs d))))
  | [], j, total, _, ht, _ => by
    refine ⟨?_, ht⟩
    show rowVal total = rowVal total + 10 ^ j * (rowVal xs * 0)
    rw [Nat.mul_zero, Nat.mul_zero, Nat.add_zero]
  | d :: ds, j, total, hds, ht, hlen => by
    obtain ⟨hd, hds'⟩ := digits_cons hds
    obtain ⟨vm, dm, _⟩ := mul_row_correct xs d hx hd
    obtain ⟨hl1, _⟩ := mul_row_len xs d hx hd
    have hsum := add_digits (total.drop j) _ (digits_drop j ht) dm
    have e : out refStep (addChainP j total ((d :: ds).map fun d => rowOf (mulRowTrace refStep xs d))) =
        out refStep (addChainP (j + 1) (total.take j ++ rowOf (addTrace refStep (total.drop j)
          (rowOf (mulRowTrace refStep xs d)))) (ds.map fun d => rowOf (mulRowTrace refStep xs d))) := by
      show out refStep ((rowsP .ADD (total.drop j) (rowOf (mulRowTrace refStep xs d))).bind _) = _
      rw [out_bind, rowsP_out]
      rfl
    have hlen' : xs ≠ [] → j + 1 ≤ (total.take j ++ rowOf (addTrace refStep (total.drop j)
        (rowOf (mulRowTrace refStep xs d)))).length := by
      intro hne
      have hr : rowOf (mulRowTrace refStep xs d) ≠ [] := by
        intro h0
        rw [h0] at hl1
        cases xs with
        | nil => exact hne rfl
        | cons x r => have : (x :: r).length = r.length + 1 := rfl; simp at hl1
      have hne' := add_row_ne (total.drop j) _ (digits_drop j ht) dm hr
      have hpos : 1 ≤ (rowOf (addTrace refStep (total.drop j) (rowOf (mulRowTrace refStep xs d)))).length := by
        cases h : rowOf (addTrace refStep (total.drop j) (rowOf (mulRowTrace refStep xs d))) with
        | nil => exact absurd h hne'
        | cons _ _ => simp
      rw [List.length_append, List.length_take, Nat.min_eq_left (hlen hne)]
      omega
    obtain ⟨i1, i2⟩ := addChain_val xs hx ds (j + 1) _ hds'
      (digits_append (digits_take j ht) hsum) hlen'
    rw [e]
    refine ⟨?_, i2⟩
    rw [i1, chain_step_val total _ j ht dm, vm]
    by_cases hne : xs = []
    · subst hne
      show rowVal total + 10 ^ (total.take j).length * (0 * d.val) + 10 ^ (j + 1) * (0 * rowVal ds) =
        rowVal total + 10 ^ j * (0 * rowVal (d :: ds))
      simp only [Nat.zero_mul, Nat.mul_zero, Nat.add_zero]
    · rw [List.length_take, Nat.min_eq_left (hlen hne), Nat.pow_succ, chain_arith]
      rfl

/-- The value invariant of the chain's running total, and the `ADD` views it presents: the
total from column `j` on is never longer than the row added to it. -/
theorem addChain_closed (xs : List Cell) (hx : Digits xs) : ∀ (ds : List Cell) (j : Nat) (total : List Cell),
    Digits ds → Digits total → total.length ≤ j + xs.length → rowVal total < 10 ^ (j + xs.length) →
    ∀ p ∈ log refStep (addChainP j total (ds.map fun d => rowOf (mulRowTrace refStep xs d))), p.1 ∈ V_MULADD
  | [], _, _, _, _, _, _ => fun p hp => by cases hp
  | d :: ds, j, total, hds, ht, hlen, hval => by
    obtain ⟨hd, hds'⟩ := digits_cons hds
    obtain ⟨vm, dm, _⟩ := mul_row_correct xs d hx hd
    obtain ⟨hl1, hl2⟩ := mul_row_len xs d hx hd
    have hdrop : (total.drop j).length ≤ (rowOf (mulRowTrace refStep xs d)).length := by
      rw [List.length_drop]; omega
    have e : log refStep (addChainP j total ((d :: ds).map fun d => rowOf (mulRowTrace refStep xs d))) =
        addTrace refStep (total.drop j) (rowOf (mulRowTrace refStep xs d)) ++
        log refStep (addChainP (j + 1) (total.take j ++ rowOf (addTrace refStep (total.drop j)
          (rowOf (mulRowTrace refStep xs d)))) (ds.map fun d => rowOf (mulRowTrace refStep xs d))) := by
      show log refStep ((rowsP .ADD (total.drop j) (rowOf (mulRowTrace refStep xs d))).bind _) = _
      rw [log_bind, rowsP_log, rowsP_out]
      rfl
    intro p hp
    rw [e] at hp
    rcases List.mem_append.mp hp with hp' | hp'
    · exact add_le_closed _ _ _ .blank (digits_drop j ht) dm (by decide) hdrop p hp'
    · -- the next total keeps the invariant
      have hsum := add_digits (total.drop j) _ (digits_drop j ht) dm
      have hv' := chain_step_val total _ j ht dm
      rw [vm] at hv'
      have hxlt := rowVal_lt_pow xs
      have hlt : (total.take j).length ≤ j := by rw [List.length_take]; exact Nat.min_le_left _ _
      have hpj : 10 ^ (total.take j).length ≤ 10 ^ j := Nat.pow_le_pow_right (by decide) hlt
      have hd9 : rowVal xs * d.val ≤ rowVal xs * 9 := Nat.mul_le_mul_left _ (Cell.val_le d)
      have hP := pow10_pos j
      have hprod : 10 ^ (total.take j).length * (rowVal xs * d.val) ≤ 10 ^ j * (rowVal xs * 9) :=
        Nat.mul_le_mul hpj hd9
      have hT : 10 ^ j * rowVal xs + 10 ^ j ≤ 10 ^ (j + xs.length) := by
        have h := Nat.mul_le_mul_left (10 ^ j) (Nat.succ_le_of_lt hxlt)
        rw [Nat.mul_succ, ← Nat.pow_add] at h
        exact h
      have h9 : 10 ^ j * (rowVal xs * 9) = 9 * (10 ^ j * rowVal xs) := by
        rw [Nat.mul_comm (rowVal xs) 9, Nat.mul_left_comm, Nat.mul_comm 9]
      have hval' : rowVal (total.take j ++ rowOf (addTrace refStep (total.drop j) (rowOf (mulRowTrace refStep xs d)))) <
          10 ^ (j + 1 + xs.length) := by
        rw [hv', show j + 1 + xs.length = (j + xs.length) + 1 by omega, Nat.pow_succ]
        omega
      have hlen' : (total.take j ++ rowOf (addTrace refStep (total.drop j) (rowOf (mulRowTrace refStep xs d)))).length ≤
          j + 1 + xs.length := by
        obtain ⟨hal1, hal2⟩ := add_len (total.drop j) _ (digits_drop j ht) dm
        have hmx : max (total.drop j).length (rowOf (mulRowTrace refStep xs d)).length =
            (rowOf (mulRowTrace refStep xs d)).length := Nat.max_eq_right hdrop
        rw [hmx] at hal1 hal2
        rw [List.length_append]
        by_cases hc : (rowOf (addTrace refStep (total.drop j) (rowOf (mulRowTrace refStep xs d)))).length ≤
            xs.length + 1
        · omega
        · exfalso
          have hfull : (rowOf (mulRowTrace refStep xs d)).length = xs.length + 1 := by omega
          have hpow := hal2 (by omega)
          rw [hfull] at hpow
          -- the sum reaches 10^(|x|+1): then the total had no cells above column j
          have hsv := chain_step_val total (rowOf (mulRowTrace refStep xs d)) j ht dm
          have hvt := rowVal_take_drop total j
          by_cases hshort : j ≤ total.length
          · have hl : (total.take j).length = j := by rw [List.length_take]; exact Nat.min_eq_left hshort
            have hbig : 10 ^ j * 10 ^ (xs.length + 1) ≤ rowVal (total.take j ++
                rowOf (addTrace refStep (total.drop j) (rowOf (mulRowTrace refStep xs d)))) := by
              rw [rowVal_app, hl]
              obtain ⟨va, _, _⟩ := add_correct (total.drop j) (rowOf (mulRowTrace refStep xs d)) (digits_drop j ht) dm
              rw [va]
              exact Nat.le_trans (Nat.mul_le_mul_left _ hpow) (Nat.le_add_left _ _)
            rw [← Nat.pow_add, show j + (xs.length + 1) = j + 1 + xs.length by omega] at hbig
            omega
          · have hnil : total.drop j = [] := List.drop_eq_nil_of_le (by omega)
            rw [hnil] at hpow
            have hrl := rowVal_lt_pow (rowOf (mulRowTrace refStep xs d))
            rw [hfull] at hrl
            show False
            have : rowVal ([] : List Cell) = 0 := rfl
            omega
      exact addChain_closed xs hx ds (j + 1) _ hds' (digits_append (digits_take j ht) hsum) hlen' hval' p hp'

/-- Every view the reference long multiplication (in Python's order) presents is a `MUL` view of
V or one of the 222 `ADD` views of `V_MULADD`. -/
theorem mul_closed (xs ys : List Cell) (hx : Digits xs) (hy : Digits ys) :
    ∀ p ∈ log refStep (mulP xs ys), p.1 ∈ V_MUL ∨ p.1 ∈ V_MULADD := by
  intro p hp
  rcases ((mulP_eq refStep xs ys).2 p).mp hp with ⟨d, hd, e⟩ | e
  · exact Or.inl (mul_sound d ((digits_iff ys).mp hy d hd) _ xs .blank hx (by decide) (mulOK_blank d) p e)
  · cases ys with
    | nil => cases e
    | cons d ds =>
      obtain ⟨hd, hds⟩ := digits_cons hy
      obtain ⟨_, hl2⟩ := mul_row_len xs d hx hd
      obtain ⟨vm, dm, _⟩ := mul_row_correct xs d hx hd
      refine Or.inr (addChain_closed xs hx ds 1 _ hds dm (by omega) ?_ p e)
      rw [vm, show 1 + xs.length = xs.length + 1 by omega, Nat.pow_succ]
      have := rowVal_lt_pow xs
      have : rowVal xs * d.val ≤ rowVal xs * 9 := Nat.mul_le_mul_left _ (Cell.val_le d)
      omega

/-! ### Signed multiplication: correctness and reduction -/

/-- The views of a signed multiplication: the 4 `SGN*` views, the 506 `MUL` views and the 222
`ADD` views of `V_MULADD`. -/
def VSMUL (v : View) : Prop := v ∈ V_SGNMUL ∨ v ∈ V_MUL ∨ v ∈ V_MULADD

theorem sgnMul_closed (a b : SNum) (ha : a.WF) (hb : b.WF) :
    ∀ x ∈ log refStep (sgnMulP a b), VSMUL x.1 := by
  rw [(sgnMulP_eq refStep a b).2]
  intro x hx
  rcases List.mem_cons.mp hx with e | e
  · subst e
    exact Or.inl (sgn_mul a.1 (SNum.sign_mem ha) b.1 (SNum.sign_mem hb)).2
  · rcases mul_closed a.2 b.2 ha.2 hb.2 x e with h | h
    · exact Or.inr (Or.inl h)
    · exact Or.inr (Or.inr h)

/-- **The product, as Python runs it, is correct**: a digit row denoting `x · y`. -/
theorem mulP_val (xs ys : List Cell) (hx : Digits xs) (hy : Digits ys) :
    rowVal (out refStep (mulP xs ys)) = rowVal xs * rowVal ys ∧ Digits (out refStep (mulP xs ys)) := by
  rw [(mulP_eq refStep xs ys).1]
  cases ys with
  | nil => exact ⟨by show 0 = rowVal xs * 0; rw [Nat.mul_zero], digits_nil⟩
  | cons d ds =>
    obtain ⟨hd, hds⟩ := digits_cons hy
    obtain ⟨vm, dm, _⟩ := mul_row_correct xs d hx hd
    obtain ⟨hl1, _⟩ := mul_row_len xs d hx hd
    have hlen : xs ≠ [] → 1 ≤ (rowOf (mulRowTrace refStep xs d)).length := by
      intro hne
      cases xs with
      | nil => exact absurd rfl hne
      | cons x r => have : (x :: r).length = r.length + 1 := rfl; omega
    obtain ⟨v1, v2⟩ := addChain_val xs hx ds 1 _ hds dm hlen
    show rowVal (out refStep (addChainP 1 (rowOf (mulRowTrace refStep xs d)) _)) = _ ∧ _
    refine ⟨?_, v2⟩
    rw [v1, vm, Nat.pow_one, rowVal_cons, Nat.mul_add, Nat.mul_left_comm]

/-- **Correctness (signed multiplication).** For signed numbers `a`, `b` (digit rows of any
lengths), the reference signed multiplication writes a signed number denoting `a · b` (a zero
product takes the sign the `SGN*` step gives, `-0` for `-a · 0`, as Python does; it denotes 0). -/
theorem signed_mul_correct (a b : SNum) (ha : a.WF) (hb : b.WF) :
    (out refStep (sgnMulP a b)).WF ∧ (out refStep (sgnMulP a b)).val = a.val * b.val := by
  rw [(sgnMulP_eq refStep a b).1]
  obtain ⟨hstep, _⟩ := sgn_mul a.1 (SNum.sign_mem ha) b.1 (SNum.sign_mem hb)
  rw [hstep]
  obtain ⟨hv, hd⟩ := mulP_val a.2 b.2 ha.2 hb.2
  refine ⟨⟨?_, canon_digits _ hd⟩, ?_⟩
  · show (if a.1 = b.1 then Cell.plus else Cell.minus) = .plus ∨
      (if a.1 = b.1 then Cell.plus else Cell.minus) = .minus
    by_cases h : a.1 = b.1
    · rw [if_pos h]; exact Or.inl rfl
    · rw [if_neg h]; exact Or.inr rfl
  · show sval (if a.1 = b.1 then Cell.plus else Cell.minus) (rowVal (canon (out refStep (mulP a.2 b.2)))) =
      sval a.1 (rowVal a.2) * sval b.1 (rowVal b.2)
    rw [canon_val, hv]
    rcases ha.1 with e1 | e1 <;> rcases hb.1 with e2 | e2 <;> rw [e1, e2]
    · rw [if_pos rfl, sval_plus, sval_plus, sval_plus, Int.natCast_mul]
    · rw [if_neg (show ¬ (Cell.plus = Cell.minus) by decide), sval_minus, sval_minus, sval_plus,
        Int.natCast_mul, Int.mul_neg]
    · rw [if_neg (show ¬ (Cell.minus = Cell.plus) by decide), sval_minus, sval_minus, sval_plus,
        Int.natCast_mul, Int.neg_mul]
    · rw [if_pos rfl, sval_plus, sval_minus, sval_minus, Int.neg_mul_neg, Int.natCast_mul]

theorem W_SGNMUL_fst : W_SGNMUL.map Prod.fst = V_SGNMUL := by decide +kernel

theorem W_SGNMUL_ok : ∀ w ∈ W_SGNMUL, (SNum.wfb w.2.1 = true ∧ SNum.wfb w.2.2 = true) ∧
    w.1 ∈ Prog.views refStep (sgnMulP w.2.1 w.2.2) := by decide +kernel

theorem W_MULADD_fst : W_MULADD.map Prod.fst = V_MULADD := by decide +kernel

theorem W_MULADD_ok : ∀ w ∈ W_MULADD, allDigits w.2.1 = true ∧ allDigits w.2.2 = true ∧
    w.1 ∈ (log refStep (mulP w.2.1 w.2.2)).map Prod.fst := by decide +kernel

theorem sgnMul_wit :
    ∀ v, VSMUL v → ∃ i : SNum × SNum, (i.1.WF ∧ i.2.WF) ∧ v ∈ Prog.views refStep (sgnMulP i.1 i.2) := by
  intro v hv
  rcases hv with h | h | h
  · rw [← W_SGNMUL_fst] at h
    obtain ⟨w, hw, rfl⟩ := List.mem_map.mp h
    obtain ⟨⟨h1, h2⟩, h3⟩ := W_SGNMUL_ok w hw
    exact ⟨w.2, ⟨SNum.wf_of_wfb _ h1, SNum.wf_of_wfb _ h2⟩, h3⟩
  · rw [← W_MUL_fst] at h
    obtain ⟨w, hw, rfl⟩ := List.mem_map.mp h
    obtain ⟨hx, hd, hpres⟩ := W_MUL_ok w hw
    refine ⟨((.plus, w.2.1), (.plus, [w.2.2])),
      ⟨⟨Or.inl rfl, hx⟩, ⟨Or.inl rfl, digits_cons_intro hd digits_nil⟩⟩, ?_⟩
    rw [Prog.views, (sgnMulP_eq refStep _ _).2, List.map_cons]
    apply List.mem_cons_of_mem
    obtain ⟨p, hp, hpw⟩ := List.mem_map.mp hpres
    rw [← hpw]
    exact List.mem_map_of_mem (((mulP_eq refStep _ _).2 p).mpr (Or.inl ⟨w.2.2, List.Mem.head _, hp⟩))
  · rw [← W_MULADD_fst] at h
    obtain ⟨w, hw, rfl⟩ := List.mem_map.mp h
    obtain ⟨hx, hy, hpres⟩ := W_MULADD_ok w hw
    refine ⟨((.plus, w.2.1), (.plus, w.2.2)), ⟨⟨Or.inl rfl, hx⟩, ⟨Or.inl rfl, hy⟩⟩, ?_⟩
    rw [Prog.views, (sgnMulP_eq refStep _ _).2, List.map_cons]
    exact List.mem_cons_of_mem _ hpres

/-- **Reduction (signed multiplication).** A stepper runs every signed multiplication of digit
rows of every length exactly as the reference iff it agrees with the reference on the 732 views
of `VSMUL` (the 4 `SGN*` views, the 506 `MUL` views, the 222 `ADD` views of `V_MULADD`). -/
theorem reduction_signed_mul (f : Stepper) :
    (∀ v, VSMUL v → f v = refStep v) ↔
      ∀ a b : SNum, a.WF → b.WF → steps f (sgnMulP a b) = steps refStep (sgnMulP a b) := by
  have h := reduction_of (fun i : SNum × SNum => sgnMulP i.1 i.2) (fun i => i.1.WF ∧ i.2.WF)
    VSMUL (fun i hi => sgnMul_closed i.1 i.2 hi.1 hi.2) sgnMul_wit f
  constructor
  · intro hf a b ha hb; exact h.mp hf (a, b) ⟨ha, hb⟩
  · intro hr; exact h.mpr (fun i hi => hr i.1 i.2 hi.1 hi.2)

end Sketchpad
