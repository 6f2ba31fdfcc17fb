/-
  Sketchpad.Sqrt — the digit-by-digit square root (`sqrt_rows`, `_odd_number`, `_root_digit`)
  and `signed_isqrt` of `sketchpad/procedures.py`, sequential mode, as programs of the driver.

  For each pair of digits of `a`, from the top: the row `2p` (an addition `p + p` of the root so
  far), an `ODD` view whose step writes the units digit 1 of `20p + 1`, then the trials: subtract
  `20p + 1`, `20p + 3`, … (`ADD2` increments of the odd number) from the remainder with the pair
  brought down until a subtraction borrows, counting with `DQ` views as in division; the count
  is the next root digit, and the last row that fitted, cut to the root's width plus one
  (`r.cells[:len(root)+1]`), is the next remainder.  `isqrtP`: an `ABS` view (the result's
  sign), then the square root of the digits.

  Correctness: the root `R` of a digit row `a` of any length satisfies `R² ≤ a < (R+1)²`
  (`sqrt_correct`; `isqrtN`, the integer square root, Python's `math.isqrt`).  Reduction: exact
  on every input of every length iff exact on the 277 views of `V_SQRT` (22 `ADD` views `p + p`,
  222 `SUB` views of a row never shorter than the odd number, 6 `INC` views, 5 `ADD2`, 19 `DQ`,
  `ODD`, 2 `ABS`).
-/
module

public import Sketchpad.Gcd
public import Sketchpad.TableSqrt

@[expose] public noncomputable section

set_option autoImplicit false

set_option maxRecDepth 100000
set_option maxHeartbeats 0

namespace Sketchpad

open Prog

/-! ### The program -/

/-- After a trial subtraction `t` of the odd number from `r`: a `DQ` view; `HALT` keeps `r`,
else add 2 to the odd number and count on from `t`. -/
def rdigK (rec : List Cell → List Cell → Cell → Prog (Cell × List Cell)) (r odd : List Cell)
    (cnt : Cell) (t : List (View × Step)) : Prog (Cell × List Cell) :=
  ask ⟨.DQ, lastFlag t .blank, cnt, .blank⟩ fun s =>
    if s.next = .HALT then done (s.sym, r) else (incP .ADD2 odd).bind fun o => rec (rowOf t) o s.sym

/-- `_root_digit`: at most `n` trials. -/
def rdigP : Nat → List Cell → List Cell → Cell → Prog (Cell × List Cell)
  | 0, r, _, cnt => done (cnt, r)
  | n + 1, r, odd, cnt => (rowsP .SUB r odd).bind (rdigK (rdigP n) r odd cnt)

/-- The pairs of digits from the top (`ps`), the root so far, the remainder so far. -/
def sqrtGo : List (List Cell) → List Cell → List Cell → Prog (List Cell)
  | [], root, _ => done root
  | pr :: ps, root, rem =>
    (rowsP .ADD root root).bind fun t =>
      ask ⟨.ODD, .blank, .blank, .blank⟩ fun s =>
        (rdigP 10 (pr ++ rem) (s.sym :: rowOf t) .blank).bind fun dr =>
          sqrtGo ps (dr.1 :: root) (dr.2.take (root.length + 2))

/-- The pairs of digits of a row, units first (`a.cells[2p:2p+2]`; the top one may be single). -/
def pairsOf : List Cell → List (List Cell)
  | [] => []
  | [x] => [[x]]
  | x :: y :: t => [x, y] :: pairsOf t

/-- `sqrt_rows` (sequential). -/
def sqrtP (a : List Cell) : Prog (List Cell) := sqrtGo (pairsOf a).reverse [] []

def isqrtDone (s : Step) (root : List Cell) : Prog SNum := done (s.sym, canon root)

def isqrtK (a : SNum) (s : Step) : Prog SNum := (sqrtP a.2).bind (isqrtDone s)

/-- `signed_isqrt`: an `ABS` view, then the root of the digits (a negative non-zero number is an
`InputError` in Python, outside the domain here). -/
def isqrtP (a : SNum) : Prog SNum := ask ⟨.ABS, a.1, .blank, .blank⟩ (isqrtK a)

theorem rdigP_succ (f : Stepper) (n : Nat) (r odd : List Cell) (cnt : Cell) :
    out f (rdigP (n + 1) r odd cnt) = out f (rdigK (rdigP n) r odd cnt (subTrace f r odd)) ∧
    log f (rdigP (n + 1) r odd cnt) = subTrace f r odd ++ log f (rdigK (rdigP n) r odd cnt (subTrace f r odd)) := by
  have e : rdigP (n + 1) r odd cnt = (rowsP .SUB r odd).bind (rdigK (rdigP n) r odd cnt) := rfl
  rw [e, out_bind, log_bind, rowsP_out, rowsP_log]
  exact ⟨rfl, rfl⟩

theorem rdigK_halt (f : Stepper) (rec : List Cell → List Cell → Cell → Prog (Cell × List Cell))
    (r odd : List Cell) (cnt : Cell) (t : List (View × Step)) (v : View) (s : Step)
    (hv : (⟨.DQ, lastFlag t .blank, cnt, .blank⟩ : View) = v) (hs : f v = s) (h : s.next = .HALT) :
    out f (rdigK rec r odd cnt t) = (s.sym, r) ∧ log f (rdigK rec r odd cnt t) = [(v, s)] := by
  subst hv hs
  refine ⟨?_, ?_⟩
  · show out f (if (f ⟨.DQ, lastFlag t .blank, cnt, .blank⟩).next = Op.HALT then _ else _) = _
    rw [if_pos h]
    rfl
  · show (_, _) :: log f (if (f ⟨.DQ, lastFlag t .blank, cnt, .blank⟩).next = Op.HALT then _ else _) = _
    rw [if_pos h]
    rfl

theorem rdigK_cont (f : Stepper) (rec : List Cell → List Cell → Cell → Prog (Cell × List Cell))
    (r odd : List Cell) (cnt : Cell) (t : List (View × Step)) (v : View) (s : Step)
    (hv : (⟨.DQ, lastFlag t .blank, cnt, .blank⟩ : View) = v) (hs : f v = s) (h : s.next ≠ .HALT) :
    out f (rdigK rec r odd cnt t) = out f (rec (rowOf t) (out f (incP .ADD2 odd)) s.sym) ∧
    log f (rdigK rec r odd cnt t) = (v, s) :: (log f (incP .ADD2 odd) ++
      log f (rec (rowOf t) (out f (incP .ADD2 odd)) s.sym)) := by
  subst hv hs
  refine ⟨?_, ?_⟩
  · show out f (if (f ⟨.DQ, lastFlag t .blank, cnt, .blank⟩).next = Op.HALT then _ else _) = _
    rw [if_neg h, out_bind]
  · show (_, _) :: log f (if (f ⟨.DQ, lastFlag t .blank, cnt, .blank⟩).next = Op.HALT then _ else _) = _
    rw [if_neg h, log_bind]

theorem sqrtGo_cons (f : Stepper) (pr : List Cell) (ps : List (List Cell)) (root rem : List Cell) :
    out f (sqrtGo (pr :: ps) root rem) =
      out f (sqrtGo ps ((out f (rdigP 10 (pr ++ rem) ((f ⟨.ODD, .blank, .blank, .blank⟩).sym ::
          rowOf (addTrace f root root)) .blank)).1 :: root)
        ((out f (rdigP 10 (pr ++ rem) ((f ⟨.ODD, .blank, .blank, .blank⟩).sym ::
          rowOf (addTrace f root root)) .blank)).2.take (root.length + 2))) ∧
    log f (sqrtGo (pr :: ps) root rem) = addTrace f root root ++
      (⟨.ODD, .blank, .blank, .blank⟩, f ⟨.ODD, .blank, .blank, .blank⟩) ::
        (log f (rdigP 10 (pr ++ rem) ((f ⟨.ODD, .blank, .blank, .blank⟩).sym ::
          rowOf (addTrace f root root)) .blank) ++
        log f (sqrtGo ps ((out f (rdigP 10 (pr ++ rem) ((f ⟨.ODD, .blank, .blank, .blank⟩).sym ::
            rowOf (addTrace f root root)) .blank)).1 :: root)
          ((out f (rdigP 10 (pr ++ rem) ((f ⟨.ODD, .blank, .blank, .blank⟩).sym ::
            rowOf (addTrace f root root)) .blank)).2.take (root.length + 2)))) := by
  refine ⟨?_, ?_⟩
  · show out f ((rowsP .ADD root root).bind _) = _
    rw [out_bind, rowsP_out]
    show out f ((rdigP 10 (pr ++ rem) ((f ⟨.ODD, .blank, .blank, .blank⟩).sym ::
      rowOf (rowsTrace f .ADD root root)) .blank).bind _) = _
    rw [out_bind]
    try rfl
  · show log f ((rowsP .ADD root root).bind _) = _
    rw [log_bind, rowsP_log, rowsP_out]
    show rowsTrace f .ADD root root ++ ((⟨.ODD, .blank, .blank, .blank⟩, f ⟨.ODD, .blank, .blank, .blank⟩) ::
      log f ((rdigP 10 (pr ++ rem) ((f ⟨.ODD, .blank, .blank, .blank⟩).sym ::
        rowOf (rowsTrace f .ADD root root)) .blank).bind _)) = _
    rw [log_bind]
    try rfl

theorem isqrtP_eq (f : Stepper) (a : SNum) :
    out f (isqrtP a) = ((f ⟨.ABS, a.1, .blank, .blank⟩).sym, canon (out f (sqrtP a.2))) ∧
    log f (isqrtP a) = (⟨.ABS, a.1, .blank, .blank⟩, f ⟨.ABS, a.1, .blank, .blank⟩) :: log f (sqrtP a.2) := by
  unfold isqrtP
  rw [out_ask, log_ask, isqrtK, out_bind, log_bind]
  exact ⟨rfl, by rw [isqrtDone, log_done, List.append_nil]⟩

/-! ### The integer square root -/

def sqrtBelow (n : Nat) : Nat → Nat
  | 0 => 0
  | k + 1 => if (k + 1) * (k + 1) ≤ n then k + 1 else sqrtBelow n k

/-- The integer square root (`math.isqrt`): the largest `r` with `r * r ≤ n`. -/
def isqrtN (n : Nat) : Nat := sqrtBelow n n

theorem sqrtBelow_spec (n : Nat) : ∀ k, sqrtBelow n k * sqrtBelow n k ≤ n ∧
    ∀ j, j ≤ k → j * j ≤ n → j ≤ sqrtBelow n k
  | 0 => ⟨by show 0 * 0 ≤ n; omega, fun j hj _ => by omega⟩
  | k + 1 => by
    have e : sqrtBelow n (k + 1) = if (k + 1) * (k + 1) ≤ n then k + 1 else sqrtBelow n k := rfl
    obtain ⟨ih1, ih2⟩ := sqrtBelow_spec n k
    by_cases h : (k + 1) * (k + 1) ≤ n
    · rw [e, if_pos h]
      exact ⟨h, fun j hj _ => hj⟩
    · rw [e, if_neg h]
      refine ⟨ih1, fun j hj hjj => ?_⟩
      rcases Nat.lt_or_ge j (k + 1) with hl | hl
      · exact ih2 j (by omega) hjj
      · have : j = k + 1 := by omega
        subst this
        exact absurd hjj h

theorem isqrt_spec (n : Nat) : isqrtN n * isqrtN n ≤ n ∧ n < (isqrtN n + 1) * (isqrtN n + 1) := by
  obtain ⟨h1, h2⟩ := sqrtBelow_spec n n
  refine ⟨h1, ?_⟩
  rcases Nat.lt_or_ge n ((isqrtN n + 1) * (isqrtN n + 1)) with h | h
  · exact h
  · have h3 : 1 * (isqrtN n + 1) ≤ (isqrtN n + 1) * (isqrtN n + 1) :=
      Nat.mul_le_mul (by omega) (Nat.le_refl _)
    have := h2 (isqrtN n + 1) (by omega) h
    exact absurd this (by show ¬ (isqrtN n + 1 ≤ isqrtN n); omega)

theorem isqrt_unique (n r : Nat) (h1 : r * r ≤ n) (h2 : n < (r + 1) * (r + 1)) : r = isqrtN n := by
  obtain ⟨s1, s2⟩ := isqrt_spec n
  rcases Nat.lt_trichotomy r (isqrtN n) with h | h | h
  · have h' : r + 1 ≤ isqrtN n := h
    have := Nat.mul_le_mul h' h'
    omega
  · exact h
  · have h' : isqrtN n + 1 ≤ r := h
    have := Nat.mul_le_mul h' h'
    omega

/-! ### Arithmetic of the odd numbers -/

/-- `Sq P c = 20·P·c + c²`: the sum of the first `c` odd numbers `20P + 1, 20P + 3, …`. -/
def Sq (P c : Nat) : Nat := 20 * (P * c) + c * c

theorem sq_zero (P : Nat) : Sq P 0 = 0 := by
  unfold Sq
  rw [Nat.mul_zero, Nat.mul_zero]

theorem sq_succ (P c : Nat) : Sq P (c + 1) = Sq P c + 20 * P + 2 * c + 1 := by
  unfold Sq
  rw [Nat.mul_add P c 1, Nat.mul_one, Nat.add_mul c 1 (c + 1), Nat.one_mul, Nat.mul_add c c 1, Nat.mul_one]
  omega

theorem sq_ten_le (P c : Nat) (h : 10 ≤ c) : 20 * (P * 10) + 100 ≤ Sq P c := by
  unfold Sq
  have h1 := Nat.mul_le_mul_left P h
  have h2 := Nat.mul_le_mul h h
  omega

theorem sq_expand (P d : Nat) : (d + 10 * P) * (d + 10 * P) = 100 * (P * P) + Sq P d := by
  unfold Sq
  have h1 : d * (10 * P) = 10 * (P * d) := by rw [Nat.mul_left_comm, Nat.mul_comm d P]
  have h2 : 10 * P * d = 10 * (P * d) := Nat.mul_assoc 10 P d
  have h3 : 10 * P * (10 * P) = 100 * (P * P) := by
    rw [Nat.mul_assoc, Nat.mul_left_comm P 10 P]
    omega
  rw [Nat.add_mul, Nat.mul_add, Nat.mul_add, h1, h2, h3]
  omega

theorem succ_sq (P : Nat) : (P + 1) * (P + 1) = P * P + 2 * P + 1 := by
  rw [Nat.add_mul, Nat.mul_add, Nat.mul_one, Nat.one_mul]
  omega

/-! ### The views of a square root -/

/-- The `ADD` views of `p + p`: both cells are the root's. -/
def addSq (v : View) : Prop := v.a = v.b

/-- The `SUB` views of a trial subtraction: the row is never shorter than the odd number. -/
def subSq (v : View) : Prop := v.a ≠ .blank ∨ v.b = .blank

/-- The `INC` views after `ADD2` of `20p + 9`: the tens digit of `20p + 9` is even (or blank). -/
def incSq (v : View) : Prop :=
  v.a = .d0 ∨ v.a = .d2 ∨ v.a = .d4 ∨ v.a = .d6 ∨ v.a = .d8 ∨ v.a = .blank

instance : DecidablePred addSq := fun v => inferInstanceAs (Decidable (v.a = v.b))
instance : DecidablePred subSq := fun v => inferInstanceAs (Decidable (v.a ≠ .blank ∨ v.b = .blank))
instance : DecidablePred incSq := fun v =>
  inferInstanceAs (Decidable (v.a = .d0 ∨ v.a = .d2 ∨ v.a = .d4 ∨ v.a = .d6 ∨ v.a = .d8 ∨ v.a = .blank))

/-- The 277 views of a square root. -/
def V_SQRT : List View :=
  V_ADD.filter (fun v => decide (addSq v)) ++ V_SUB.filter (fun v => decide (subSq v)) ++
    V_INC.filter (fun v => decide (incSq v)) ++ V_ADD2 ++ V_DQ ++ V_ODD ++ V_ABS

theorem sqv_add {v : View} (h : v ∈ V_ADD) (h' : addSq v) : v ∈ V_SQRT :=
  List.mem_append_left _ (List.mem_append_left _ (List.mem_append_left _ (List.mem_append_left _
    (List.mem_append_left _ (List.mem_append_left _ (List.mem_filter.mpr ⟨h, decide_eq_true h'⟩))))))

theorem sqv_sub {v : View} (h : v ∈ V_SUB) (h' : subSq v) : v ∈ V_SQRT :=
  List.mem_append_left _ (List.mem_append_left _ (List.mem_append_left _ (List.mem_append_left _
    (List.mem_append_left _ (List.mem_append_right _ (List.mem_filter.mpr ⟨h, decide_eq_true h'⟩))))))

theorem sqv_inc {v : View} (h : v ∈ V_INC) (h' : incSq v) : v ∈ V_SQRT :=
  List.mem_append_left _ (List.mem_append_left _ (List.mem_append_left _ (List.mem_append_left _
    (List.mem_append_right _ (List.mem_filter.mpr ⟨h, decide_eq_true h'⟩)))))

theorem sqv_add2 {v : View} (h : v ∈ V_ADD2) : v ∈ V_SQRT :=
  List.mem_append_left _ (List.mem_append_left _ (List.mem_append_left _ (List.mem_append_right _ h)))

theorem sqv_dq {v : View} (h : v ∈ V_DQ) : v ∈ V_SQRT :=
  List.mem_append_left _ (List.mem_append_left _ (List.mem_append_right _ h))

theorem sqv_odd {v : View} (h : v ∈ V_ODD) : v ∈ V_SQRT :=
  List.mem_append_left _ (List.mem_append_right _ h)

theorem sqv_abs {v : View} (h : v ∈ V_ABS) : v ∈ V_SQRT := List.mem_append_right _ h

theorem odd_step : refStep ⟨.ODD, .blank, .blank, .blank⟩ = ⟨.d1, .blank, .HALT⟩ ∧
    (⟨.ODD, .blank, .blank, .blank⟩ : View) ∈ V_ODD := by decide +kernel

/-- `p + p` presents only `ADD` views with equal cells. -/
theorem add_sq_closed (n : Nat) : ∀ (xs : List Cell) (c : Cell), Digits xs → c ∈ carries →
    ∀ p ∈ trace refStep n .ADD xs xs c, p.1 ∈ V_SQRT := by
  intro xs c hx hc
  refine trace_inv refStep (fun v => v ∈ V_SQRT)
    (fun _ o xs' ys' c' => o = .ADD ∧ Digits xs' ∧ ys' = xs' ∧ c' ∈ carries) ?_ ?_ n .ADD xs xs c
    ⟨rfl, hx, rfl, hc⟩
  · intro m o xs' ys' c' hI
    obtain ⟨ho, hx', hy', hc'⟩ := hI
    subst ho hy'
    exact sqv_add (add_grid_in_V _ (hd_mem_db hx') _ (hd_mem_db hx') c' hc') rfl
  · intro m o xs' ys' c' hI hs
    obtain ⟨ho, hx', hy', hc'⟩ := hI
    subst ho hy'
    obtain ⟨h1, h2⟩ := add_grid_closed _ (hd_mem_db hx') _ (hd_mem_db hx') c' hc' hs
    exact ⟨h1, digits_tl hx', rfl, h2⟩

/-- A subtraction of a row no longer than the row it is subtracted from presents only `SUB`
views of `subSq`. -/
theorem sub_sq_closed (n : Nat) : ∀ (xs ys : List Cell) (c : Cell), Digits xs → Digits ys →
    c ∈ carries → ys.length ≤ xs.length → ∀ p ∈ trace refStep n .SUB xs ys c, p.1 ∈ V_SQRT := by
  intro xs ys c hx hy hc hle
  refine trace_inv refStep (fun v => v ∈ V_SQRT)
    (fun _ o xs' ys' c' => o = .SUB ∧ Digits xs' ∧ Digits ys' ∧ c' ∈ carries ∧
      ys'.length ≤ xs'.length) ?_ ?_ n .SUB xs ys c ⟨rfl, hx, hy, hc, hle⟩
  · intro m o xs' ys' c' hI
    obtain ⟨ho, hx', hy', hc', hle'⟩ := hI
    subst ho
    refine sqv_sub (sub_grid_in_V _ (hd_mem_db hx') _ (hd_mem_db hy') c' hc') ?_
    show hd xs' ≠ .blank ∨ hd ys' = .blank
    by_cases ha : hd xs' = .blank
    · right
      have e := eq_nil_of_hd_blank hx' ha
      subst e
      cases ys' with
      | nil => rfl
      | cons y t =>
        have : (y :: t).length = t.length + 1 := rfl
        have h0 : ([] : List Cell).length = 0 := rfl
        omega
    · exact Or.inl ha
  · intro m o xs' ys' c' hI hs
    obtain ⟨ho, hx', hy', hc', hle'⟩ := hI
    subst ho
    by_cases hb : hd xs' = .blank ∧ hd ys' = .blank
    · have h2 : (Step.mk Cell.blank c' Op.HALT).next.isScan = false := rfl
      rw [hb.1, hb.2, sub_top c' hc', h2] at hs
      exact absurd hs (by decide)
    · obtain ⟨hnext, _, hflag, _⟩ :=
        sub_col (hd xs') (hd_mem_db hx') (hd ys') (hd_mem_db hy') c' hc' hb
      have := len_tl xs'
      have := len_tl ys'
      exact ⟨hnext, digits_tl hx', digits_tl hy', hflag, by omega⟩

/-- A subtraction writes one digit per column of the longer row. -/
theorem sub_len_aux (n : Nat) : ∀ (xs ys : List Cell) (c : Cell),
    Digits xs → Digits ys → c ∈ carries → xs.length + 1 ≤ n → ys.length + 1 ≤ n →
    (rowOf (trace refStep n .SUB xs ys c)).length = max xs.length ys.length := by
  induction n with
  | zero => intro xs ys c _ _ _ hnx _; omega
  | succ n ih =>
    intro xs ys c hx hy hc hnx hny
    by_cases hxy : xs = [] ∧ ys = []
    · obtain ⟨rfl, rfl⟩ := hxy
      rw [trace_last refStep n .SUB [] [] c ⟨.SUB, .blank, .blank, c⟩ ⟨.blank, c, .HALT⟩ rfl
        (sub_top c hc) rfl]
      rw [rowOf_cons_of_eq (⟨.SUB, .blank, .blank, c⟩, ⟨.blank, c, .HALT⟩) [] rfl]
      rfl
    · have hne : ¬(hd xs = .blank ∧ hd ys = .blank) := by
        intro ⟨h1, h2⟩
        exact hxy ⟨eq_nil_of_hd_blank hx h1, eq_nil_of_hd_blank hy h2⟩
      obtain ⟨hnext, hsym, hflag, _⟩ :=
        sub_col (hd xs) (hd_mem_db hx) (hd ys) (hd_mem_db hy) c hc hne
      have hlx := len_tl xs
      have hly := len_tl ys
      have hpos := one_le_len_of_ne xs ys hne
      have ih' := ih (tl xs) (tl ys) (refStep ⟨.SUB, hd xs, hd ys, c⟩).flag
        (digits_tl hx) (digits_tl hy) hflag (by omega) (by omega)
      rw [trace_step refStep n .SUB xs ys c ⟨.SUB, hd xs, hd ys, c⟩ (refStep ⟨.SUB, hd xs, hd ys, c⟩)
        .SUB (tl xs) (tl ys) (refStep ⟨.SUB, hd xs, hd ys, c⟩).flag rfl rfl hnext rfl rfl rfl rfl]
      rw [rowOf_cons_step ⟨.SUB, hd xs, hd ys, c⟩ (refStep ⟨.SUB, hd xs, hd ys, c⟩) _
        (Cell.ne_blank_of_isDigit hsym), List.length_cons, ih']
      rcases max_eq_or xs.length ys.length with ⟨e1, _⟩ | ⟨e1, _⟩ <;>
        rcases max_eq_or (tl xs).length (tl ys).length with ⟨e2, _⟩ | ⟨e2, _⟩ <;> omega

theorem sub_len (xs ys : List Cell) (hx : Digits xs) (hy : Digits ys) :
    (rowOf (subTrace refStep xs ys)).length = max xs.length ys.length :=
  sub_len_aux _ xs ys .blank hx hy (by decide)
    (by have := Nat.le_max_left xs.length ys.length; omega)
    (by have := Nat.le_max_right xs.length ys.length; omega)

/-- An increment writes at most one cell more, and only when it reaches `10^|xs|`. -/
theorem inc_len_aux (n : Nat) : ∀ (xs : List Cell), Digits xs → xs.length + 1 ≤ n →
    (incRow (out refStep (scanP n .INC xs [] .blank false)) xs).length ≤ xs.length + 1 ∧
    ((incRow (out refStep (scanP n .INC xs [] .blank false)) xs).length = xs.length + 1 →
      10 ^ xs.length ≤ rowVal xs + 1) := by
  induction n with
  | zero => intro xs _ h; omega
  | succ n ih =>
    intro xs hx hn
    by_cases h9 : hd xs = .d9
    · cases xs with
      | nil => exact absurd h9 (by decide)
      | cons x xs' =>
        have hx9 : x = .d9 := h9
        subst hx9
        have hxs' := (digits_cons hx).2
        have hlen : xs'.length + 1 ≤ n := by
          have : (Cell.d9 :: xs').length = xs'.length + 1 := rfl
          omega
        obtain ⟨m, rfl⟩ : ∃ m, n = m + 1 := ⟨n - 1, by omega⟩
        rw [(scanP_step refStep (m + 1) .INC (.d9 :: xs') [] .blank false ⟨.INC, .d9, .blank, .blank⟩
          ⟨.d0, .blank, .INC⟩ .INC .blank rfl inc_nine rfl rfl rfl).1,
          incRow_cons _ _ _ _ _ (by decide),
          show tl (Cell.d9 :: xs') = xs' from rfl, show tl ([] : List Cell) = [] from rfl]
        obtain ⟨ih1, ih2⟩ := ih xs' hxs' hlen
        rw [List.length_cons, List.length_cons]
        refine ⟨by omega, fun h => ?_⟩
        have := ih2 (by omega)
        rw [rowVal_cons, Nat.pow_succ]
        show 10 ^ xs'.length * 10 ≤ 9 + 10 * rowVal xs' + 1
        omega
    · have hstep := inc_other (hd xs) (hd_mem_db hx) h9
      have hlt : (hd xs).val + 1 < 10 := by
        cases xs with
        | nil => decide
        | cons x xs' =>
          have := Cell.val_le_eight x (digits_cons hx).1 h9
          show x.val + 1 < 10
          omega
      have hd' : (Cell.digit ((hd xs).val + 1)).isDigit = true := Cell.isDigit_digit _ hlt
      rw [(scanP_last refStep n .INC xs [] .blank false ⟨.INC, hd xs, .blank, .blank⟩ _ rfl hstep rfl).1,
        incRow_single _ _ _ (Cell.ne_blank_of_isDigit hd'), List.length_cons, len_tl]
      cases xs with
      | nil => exact ⟨by decide, fun _ => by decide⟩
      | cons x xs' =>
        have : (x :: xs').length = xs'.length + 1 := rfl
        exact ⟨by omega, fun h => by omega⟩

/-- `x + 2` for an odd `x`: at most one cell more, and only when it reaches `10^|xs|`. -/
theorem add2_len (xs : List Cell) (hx : Digits xs) (hodd : hd xs ∈ oddCells) :
    (out refStep (incP .ADD2 xs)).length ≤ xs.length + 1 ∧
    ((out refStep (incP .ADD2 xs)).length = xs.length + 1 → 10 ^ xs.length ≤ rowVal xs + 2) := by
  rw [incP_out]
  cases xs with
  | nil => exact absurd hodd (by decide)
  | cons x xs' =>
    have hxs' := (digits_cons hx).2
    have hxo : x ∈ oddCells := hodd
    by_cases h9 : x = .d9
    · subst h9
      rw [show (Cell.d9 :: xs').length + 3 = (xs'.length + 3) + 1 from rfl,
        (scanP_step refStep (xs'.length + 3) .ADD2 (.d9 :: xs') [] .blank false
          ⟨.ADD2, .d9, .blank, .blank⟩ ⟨.d1, .blank, .INC⟩ .INC .blank rfl add2_nine rfl rfl rfl).1,
        incRow_cons _ _ _ _ _ (by decide),
        show tl (Cell.d9 :: xs') = xs' from rfl, show tl ([] : List Cell) = [] from rfl]
      obtain ⟨ih1, ih2⟩ := inc_len_aux (xs'.length + 3) xs' hxs' (by omega)
      rw [List.length_cons, List.length_cons]
      refine ⟨by omega, fun h => ?_⟩
      have := ih2 (by omega)
      rw [rowVal_cons, Nat.pow_succ]
      show 10 ^ xs'.length * 10 ≤ 9 + 10 * rowVal xs' + 2
      omega
    · obtain ⟨hstep, hlt⟩ := add2_other x hxo h9
      have hd' : (Cell.digit (x.val + 2)).isDigit = true := Cell.isDigit_digit _ hlt
      rw [show (x :: xs').length + 3 = (xs'.length + 3) + 1 from rfl,
        (scanP_last refStep (xs'.length + 3) .ADD2 (x :: xs') [] .blank false ⟨.ADD2, x, .blank, .blank⟩
          _ rfl hstep rfl).1,
        incRow_single _ _ _ (Cell.ne_blank_of_isDigit hd'), List.length_cons, List.length_cons]
      have e : (tl (x :: xs')).length = xs'.length := rfl
      rw [e]
      exact ⟨by omega, fun h => by omega⟩

theorem cell_odd : ∀ x : Cell, x.isDigit = true → x.val % 2 = 1 → x ∈ oddCells := by
  intro x; cases x <;> decide

theorem cell_even : ∀ x : Cell, x ∈ db → x.val % 2 = 0 →
    (x = .d0 ∨ x = .d2 ∨ x = .d4 ∨ x = .d6 ∨ x = .d8 ∨ x = .blank) := by
  intro x; cases x <;> decide

theorem odd_hd (l : List Cell) (hl : Digits l) (h : rowVal l % 2 = 1) : hd l ∈ oddCells := by
  cases l with
  | nil => exact absurd h (by decide)
  | cons x xs =>
    rw [rowVal_cons] at h
    exact cell_odd x (digits_cons hl).1 (by omega)

/-- `x + 2` for the odd numbers of a square root presents only views of `V_SQRT`: `ADD2` at the
units digit, and, from `20p + 9` only, one `INC` view at its (even) tens digit. -/
theorem add2_sq_closed (odd : List Cell) (ho : Digits odd) (hodd : rowVal odd % 2 = 1)
    (h9 : rowVal odd % 10 = 9 → rowVal odd / 10 % 2 = 0) :
    ∀ x ∈ log refStep (incP .ADD2 odd), x.1 ∈ V_SQRT := by
  rw [incP_log]
  cases odd with
  | nil => exact absurd hodd (by decide)
  | cons x xs' =>
    have hxo : x ∈ oddCells := odd_hd (x :: xs') ho hodd
    have hv : (⟨.ADD2, x, .blank, .blank⟩ : View) ∈ V_ADD2 := by
      rw [V_ADD2_grid]; exact List.mem_map.mpr ⟨x, hxo, rfl⟩
    intro p hp
    by_cases hx9 : x = .d9
    · subst hx9
      have hxs' := (digits_cons ho).2
      rw [show (Cell.d9 :: xs').length + 3 = (xs'.length + 3) + 1 from rfl,
        (scanP_step refStep _ .ADD2 (.d9 :: xs') [] .blank false ⟨.ADD2, .d9, .blank, .blank⟩
          ⟨.d1, .blank, .INC⟩ .INC .blank rfl add2_nine rfl rfl rfl).2] at hp
      rcases List.mem_cons.mp hp with e | e
      · subst e; exact sqv_add2 hv
      · -- the tens digit of 20p + 9 is even: one INC view, which halts
        have hv9 : rowVal (Cell.d9 :: xs') = 9 + 10 * rowVal xs' := rfl
        have hev : rowVal xs' % 2 = 0 := by
          have := h9 (by rw [hv9]; omega)
          rw [hv9] at this
          omega
        have hhd := rowVal_hd_tl xs'
        have hce := cell_even (hd xs') (hd_mem_db hxs') (by omega)
        have hne9 : hd xs' ≠ .d9 := by
          intro e; rw [e] at hce; rcases hce with h | h | h | h | h | h <;> cases h
        have hstep := inc_other (hd xs') (hd_mem_db hxs') hne9
        have hhalt : (refStep ⟨.INC, hd xs', .blank, .blank⟩).next.isScan = false := by
          rw [hstep]; rfl
        rw [show (tl (Cell.d9 :: xs')) = xs' from rfl, show tl ([] : List Cell) = [] from rfl,
          show xs'.length + 3 = (xs'.length + 2) + 1 from rfl,
          (scanP_halt refStep _ .INC xs' [] .blank false hhalt).2, List.mem_singleton] at e
        subst e
        refine sqv_inc ?_ hce
        rw [V_INC_grid]
        exact List.mem_map.mpr ⟨_, hd_mem_db hxs', rfl⟩
    · obtain ⟨hstep, _⟩ := add2_other x hxo hx9
      have hhalt : (refStep ⟨.ADD2, x, .blank, .blank⟩).next.isScan = false := by rw [hstep]; rfl
      rw [show (x :: xs').length + 3 = (xs'.length + 3) + 1 from rfl,
        (scanP_halt refStep _ .ADD2 (x :: xs') [] .blank false hhalt).2, List.mem_singleton] at hp
      subst hp
      exact sqv_add2 hv

/-! ### One root digit: the reference run -/

/-- **One root digit.** With the root so far `P`, the current number `cur < 200P + 100` (the
remainder with the pair brought down), a row `r` of length `L` with `r + Sq P c = cur` after `c`
fitted trials, the odd number `20P + 2c + 1` (no longer than `L`; every odd number the trials can
reach is below `10^L`): the reference writes the largest digit `d` with `Sq P d ≤ cur`, keeps
`cur − Sq P d` (a row of length `L`) and presents only views of `V_SQRT`. -/
theorem rdig_ref (P cur L : Nat) (hcur : cur < 20 * (P * 10) + 100)
    (hodd : ∀ j, Sq P j ≤ cur → 20 * P + 2 * j + 1 < 10 ^ L) (n : Nat) :
    ∀ (r odd : List Cell) (c : Nat), Digits r → Digits odd → r.length = L → odd.length ≤ L →
      rowVal odd = 20 * P + 2 * c + 1 → rowVal r + Sq P c = cur → 10 ≤ n + c →
      ∃ d, d < 10 ∧ (out refStep (rdigP n r odd (Cell.carry c))).1 = Cell.digit d ∧
        Sq P d ≤ cur ∧ cur < Sq P (d + 1) ∧
        rowVal (out refStep (rdigP n r odd (Cell.carry c))).2 + Sq P d = cur ∧
        Digits (out refStep (rdigP n r odd (Cell.carry c))).2 ∧
        (out refStep (rdigP n r odd (Cell.carry c))).2.length = L ∧
        ∀ x ∈ log refStep (rdigP n r odd (Cell.carry c)), x.1 ∈ V_SQRT := by
  induction n with
  | zero =>
    intro r odd c _ _ _ _ _ hrv h10
    have := sq_ten_le P c (by omega)
    omega
  | succ n ih =>
    intro r odd c hr ho hL hoL hov hrv h10
    obtain ⟨o1, l1⟩ := rdigP_succ refStep n r odd (Cell.carry c)
    have hsubv : ∀ x ∈ subTrace refStep r odd, x.1 ∈ V_SQRT := fun x hx =>
      sub_sq_closed _ r odd .blank hr ho (by decide) (by omega) x hx
    have hslen : (rowOf (subTrace refStep r odd)).length = L := by
      rw [sub_len r odd hr ho, Nat.max_eq_left (by omega)]
      exact hL
    have hS1 := sq_succ P c
    by_cases hge : rowVal odd ≤ rowVal r
    · obtain ⟨s1, s2, s3⟩ := sub_ge r odd hr ho hge
      have hc9 : c < 9 := by
        rcases Nat.lt_or_ge c 9 with h | h
        · exact h
        · have := sq_ten_le P (c + 1) (by omega)
          omega
      obtain ⟨hstep, hmem⟩ := dq_fit c (List.mem_range.mpr hc9)
      have hv : (⟨.DQ, lastFlag (subTrace refStep r odd) .blank, Cell.carry c, .blank⟩ : View) =
          ⟨.DQ, .blank, Cell.carry c, .blank⟩ := by rw [s3]
      obtain ⟨o2, l2⟩ := rdigK_cont refStep (rdigP n) r odd (Cell.carry c) (subTrace refStep r odd) _ _ hv
        hstep (by intro h; cases h)
      have hodd1 : hd odd ∈ oddCells := odd_hd odd ho (by rw [hov]; omega)
      obtain ⟨a1, a2⟩ := add2_correct odd ho hodd1
      have hfit : Sq P (c + 1) ≤ cur := by omega
      have hbound := hodd (c + 1) hfit
      obtain ⟨z1, z2⟩ := add2_len odd ho hodd1
      have hoL' : (out refStep (incP .ADD2 odd)).length ≤ L := by
        by_cases hh : (out refStep (incP .ADD2 odd)).length ≤ L
        · exact hh
        · exfalso
          have e : (out refStep (incP .ADD2 odd)).length = odd.length + 1 := by omega
          have h10' := z2 e
          have e2 : odd.length = L := by omega
          rw [e2] at h10'
          omega
      obtain ⟨d, i0, i1, i2, i3, i4, i5, i6, i7⟩ := ih (rowOf (subTrace refStep r odd))
        (out refStep (incP .ADD2 odd)) (c + 1) s2 a2 hslen hoL' (by rw [a1, hov]; omega)
        (by rw [s1]; omega) (by omega)
      have hviews : ∀ x ∈ log refStep (incP .ADD2 odd), x.1 ∈ V_SQRT :=
        add2_sq_closed odd ho (by rw [hov]; omega) (by rw [hov]; omega)
      rw [o1, o2, l1, l2]
      refine ⟨d, i0, i1, i2, i3, i4, i5, i6, ?_⟩
      intro x hx
      rcases List.mem_append.mp hx with e | e
      · exact hsubv x e
      · rcases List.mem_cons.mp e with e' | e'
        · subst e'; exact sqv_dq hmem
        · rcases List.mem_append.mp e' with e'' | e''
          · exact hviews x e''
          · exact i7 x e''
    · have hlt' : rowVal r < rowVal odd := by omega
      obtain ⟨s1, _, s3, _⟩ := sub_correct r odd hr ho
      have hfl : lastFlag (subTrace refStep r odd) .blank = .d1 := by
        rcases mem_carries s3 with e | e
        · rw [e, show Cell.blank.val = 0 from rfl, Nat.zero_mul, Nat.add_zero] at s1
          omega
        · exact e
      have hc10 : c < 10 := by
        rcases Nat.lt_or_ge c 10 with h | h
        · exact h
        · have := sq_ten_le P c h
          omega
      obtain ⟨hstep, hmem⟩ := dq_stop c (List.mem_range.mpr hc10)
      have hv : (⟨.DQ, lastFlag (subTrace refStep r odd) .blank, Cell.carry c, .blank⟩ : View) =
          ⟨.DQ, .d1, Cell.carry c, .blank⟩ := by rw [hfl]
      obtain ⟨o2, l2⟩ := rdigK_halt refStep (rdigP n) r odd (Cell.carry c) (subTrace refStep r odd) _ _ hv
        hstep rfl
      rw [o1, o2, l1, l2]
      refine ⟨c, hc10, rfl, by omega, by omega, by show rowVal r + Sq P c = cur; omega, hr, hL, ?_⟩
      intro x hx
      rcases List.mem_append.mp hx with e | e
      · exact hsubv x e
      · rw [List.mem_singleton] at e
        subst e
        exact sqv_dq hmem

/-! ### The loop over the pairs -/

/-- The value of the pairs read from the top after `N`. -/
def pairVal : List (List Cell) → Nat → Nat
  | [], N => N
  | pr :: ps, N => pairVal ps (rowVal pr + 100 * N)

/-- The state between two root digits: root `P`, remainder `R = N − P²` with `R ≤ 2P`, the
remainder row at least as long as the root. -/
def SqInv (root rem : List Cell) (N : Nat) : Prop :=
  Digits root ∧ Digits rem ∧ rowVal root * rowVal root + rowVal rem = N ∧
  rowVal rem ≤ 2 * rowVal root ∧ root.length ≤ rem.length

/-- The pairs: digits, one or two each, all two but the first (the top one), and two from the
start unless nothing has been computed yet. -/
def PairsH (ps : List (List Cell)) (root rem : List Cell) : Prop :=
  (∀ q ∈ ps, Digits q ∧ 1 ≤ q.length ∧ q.length ≤ 2) ∧ (∀ q ∈ ps.tail, q.length = 2) ∧
  ((root = [] ∧ rem = []) ∨ ∀ q ∈ ps, q.length = 2)

theorem ten_pow_two (k : Nat) : 10 ^ (k + 2) = 10 ^ k * 100 := by
  rw [Nat.pow_succ, Nat.pow_succ, Nat.mul_assoc]

/-- **The loop of the square root.** From a state `SqInv root rem N`, the reference root `R` of
the remaining pairs satisfies `R² ≤ pairVal ps N < (R+1)²`; only views of `V_SQRT`. -/
theorem sqrtGo_ref : ∀ (ps : List (List Cell)) (root rem : List Cell) (N : Nat),
    SqInv root rem N → PairsH ps root rem →
    Digits (out refStep (sqrtGo ps root rem)) ∧
    rowVal (out refStep (sqrtGo ps root rem)) * rowVal (out refStep (sqrtGo ps root rem)) ≤ pairVal ps N ∧
    pairVal ps N < (rowVal (out refStep (sqrtGo ps root rem)) + 1) * (rowVal (out refStep (sqrtGo ps root rem)) + 1) ∧
    ∀ x ∈ log refStep (sqrtGo ps root rem), x.1 ∈ V_SQRT := by
  intro ps
  induction ps with
  | nil =>
    intro root rem N hinv _
    obtain ⟨hroot, _, hN, hR, _⟩ := hinv
    have e := succ_sq (rowVal root)
    refine ⟨hroot, ?_, ?_, fun x hx => by cases hx⟩
    · show rowVal root * rowVal root ≤ N; omega
    · show N < (rowVal root + 1) * (rowVal root + 1); omega
  | cons pr ps ih =>
    intro root rem N hinv hph
    obtain ⟨hroot, hrem, hN, hR, hlen⟩ := hinv
    obtain ⟨hall, htail, hshape0⟩ := hph
    obtain ⟨hprd, hp1, hp2⟩ := hall pr (List.mem_cons_self)
    have hshape : pr.length = 2 ∨ (root = [] ∧ rem = []) := by
      rcases hshape0 with h | h
      · exact Or.inr h
      · exact Or.inl (h pr List.mem_cons_self)
    obtain ⟨o1, l1⟩ := sqrtGo_cons refStep pr ps root rem
    obtain ⟨hodd0, hodd0m⟩ := odd_step
    rw [hodd0] at o1 l1
    dsimp only at o1 l1
    -- 2p, the first odd number
    obtain ⟨av, ad, _⟩ := add_correct root root hroot hroot
    obtain ⟨al1, al2⟩ := add_len root root hroot hroot
    rw [Nat.max_self] at al1 al2
    have hP := rowVal_lt_pow root
    have hodd_d : Digits (Cell.d1 :: rowOf (addTrace refStep root root)) := digits_cons_intro rfl ad
    have hodd_v : rowVal (Cell.d1 :: rowOf (addTrace refStep root root)) = 20 * rowVal root + 2 * 0 + 1 := by
      rw [rowVal_cons, av]
      show 1 + 10 * (rowVal root + rowVal root) = _
      omega
    -- the current number: the pair brought down in front of the remainder
    have hcur_d : Digits (pr ++ rem) := digits_append hprd hrem
    have hcur_v : rowVal (pr ++ rem) = rowVal pr + 100 * rowVal rem := by
      rw [rowVal_app]
      rcases hshape with h | ⟨_, h⟩
      · rw [h]
      · subst h
        show rowVal pr + 10 ^ pr.length * 0 = rowVal pr + 100 * 0
        rw [Nat.mul_zero, Nat.mul_zero]
    have hprv : rowVal pr < 100 := by
      have := rowVal_lt_pow pr
      have : 10 ^ pr.length ≤ 10 ^ 2 := Nat.pow_le_pow_right (by decide) hp2
      have : (10 : Nat) ^ 2 = 100 := rfl
      omega
    have hcur : rowVal pr + 100 * rowVal rem < 20 * (rowVal root * 10) + 100 := by omega
    have hLen : (pr ++ rem).length = pr.length + rem.length := List.length_append
    have hodd : ∀ j, Sq (rowVal root) j ≤ rowVal pr + 100 * rowVal rem →
        20 * rowVal root + 2 * j + 1 < 10 ^ (pr ++ rem).length := by
      intro j hj
      have hj10 : j < 10 := by
        rcases Nat.lt_or_ge j 10 with h | h
        · exact h
        · have := sq_ten_le (rowVal root) j h
          omega
      by_cases hL : root.length + 2 ≤ (pr ++ rem).length
      · have h1 : 10 ^ (root.length + 2) ≤ 10 ^ (pr ++ rem).length := Nat.pow_le_pow_right (by decide) hL
        rw [ten_pow_two] at h1
        omega
      · -- the first pair, a single digit: root and remainder empty
        have hpr1 : pr.length = 1 := by omega
        obtain ⟨e1, e2⟩ : root = [] ∧ rem = [] := by
          rcases hshape with h | h
          · omega
          · exact h
        subst e1 e2
        have h0 : rowVal ([] : List Cell) = 0 := rfl
        rw [h0] at hj ⊢
        have hpr10 : rowVal pr < 10 := by
          have := rowVal_lt_pow pr
          rw [hpr1] at this
          exact this
        have hjj : j * j ≤ 9 := by
          unfold Sq at hj
          rw [Nat.zero_mul, Nat.mul_zero] at hj
          omega
        have hj3 : j ≤ 3 := by
          rcases Nat.lt_or_ge j 4 with h | h
          · omega
          · have := Nat.mul_le_mul h h
            omega
        rw [hLen, hpr1]
        show 20 * 0 + 2 * j + 1 < 10
        omega
    have hoL : (Cell.d1 :: rowOf (addTrace refStep root root)).length ≤ (pr ++ rem).length := by
      rw [List.length_cons]
      by_cases hL : root.length + 2 ≤ (pr ++ rem).length
      · omega
      · have hpr1 : pr.length = 1 := by omega
        obtain ⟨e1, e2⟩ : root = [] ∧ rem = [] := by
          rcases hshape with h | h
          · omega
          · exact h
        subst e1 e2
        have h0 : (rowOf (addTrace refStep [] [])).length ≤ 0 := by
          rcases Nat.lt_or_ge (rowOf (addTrace refStep [] [])).length 1 with h | h
          · omega
          · have hl0 : ([] : List Cell).length = 0 := rfl
            have := al2 (by omega)
            have h3 : (10 : Nat) ^ ([] : List Cell).length = 1 := rfl
            have h4 : rowVal ([] : List Cell) = 0 := rfl
            omega
        rw [hLen, hpr1]
        show _ ≤ 1 + 0
        omega
    obtain ⟨d, hd10, e1, e2, e3, e4, e5, e6, e7⟩ := rdig_ref (rowVal root) (rowVal pr + 100 * rowVal rem)
      (pr ++ rem).length hcur hodd 10 (pr ++ rem) (Cell.d1 :: rowOf (addTrace refStep root root)) 0
      hcur_d hodd_d rfl hoL hodd_v (by rw [hcur_v, sq_zero, Nat.add_zero]) (by omega)
    rw [carry_zero] at e1 e4 e5 e6 e7
    rw [e1] at o1 l1
    -- the next state
    have hd' : (Cell.digit d).isDigit = true := Cell.isDigit_digit d hd10
    have hrootv : rowVal (Cell.digit d :: root) = d + 10 * rowVal root := by
      rw [rowVal_cons, Cell.val_digit d hd10]
    have hS1 := sq_succ (rowVal root) d
    have hrem_lt : rowVal (out refStep (rdigP 10 (pr ++ rem) (Cell.d1 :: rowOf (addTrace refStep root root)) .blank)).2 <
        10 ^ (root.length + 2) := by
      rw [ten_pow_two]
      omega
    have hremv := rowVal_take_of_lt _ _ hrem_lt
    have hinv' : SqInv (Cell.digit d :: root)
        ((out refStep (rdigP 10 (pr ++ rem) (Cell.d1 :: rowOf (addTrace refStep root root)) .blank)).2.take
          (root.length + 2)) (rowVal pr + 100 * N) := by
      refine ⟨digits_cons_intro hd' hroot, digits_take _ e5, ?_, ?_, ?_⟩
      · rw [hrootv, hremv, sq_expand]
        omega
      · rw [hrootv, hremv]
        omega
      · rw [List.length_take, e6, List.length_cons, hLen]
        have : root.length ≤ rem.length := hlen
        omega
    have hph' : PairsH ps (Cell.digit d :: root)
        ((out refStep (rdigP 10 (pr ++ rem) (Cell.d1 :: rowOf (addTrace refStep root root)) .blank)).2.take
          (root.length + 2)) := by
      refine ⟨fun q hq => hall q (List.mem_cons_of_mem _ hq), ?_, Or.inr htail⟩
      intro q hq
      cases ps with
      | nil => cases hq
      | cons q0 qs => exact htail q (List.mem_cons_of_mem _ hq)
    obtain ⟨r1, r2, r3, r4⟩ := ih _ _ _ hinv' hph'
    rw [o1]
    refine ⟨r1, r2, r3, ?_⟩
    rw [l1]
    intro x hx
    rcases List.mem_append.mp hx with e | e
    · exact add_sq_closed _ root .blank hroot (by decide) x e
    · rcases List.mem_cons.mp e with e' | e'
      · subst e'; exact sqv_odd hodd0m
      · rcases List.mem_append.mp e' with e'' | e''
        · exact e7 x e''
        · exact r4 x e''

/-! ### The square root of a digit row -/

/-- The value of pairs of digits, units first. -/
def pval : List (List Cell) → Nat
  | [] => 0
  | q :: qs => rowVal q + 100 * pval qs

theorem pairsOf_val : ∀ a : List Cell, pval (pairsOf a) = rowVal a
  | [] => rfl
  | [x] => by show rowVal [x] + 100 * 0 = rowVal [x]; omega
  | x :: y :: t => by
    show rowVal [x, y] + 100 * pval (pairsOf t) = rowVal (x :: y :: t)
    rw [pairsOf_val t]
    show (x.val + 10 * (y.val + 10 * 0)) + 100 * rowVal t = x.val + 10 * (y.val + 10 * rowVal t)
    omega

theorem pairsOf_mem : ∀ a : List Cell, Digits a → ∀ q ∈ pairsOf a, Digits q ∧ 1 ≤ q.length ∧ q.length ≤ 2
  | [], _, q, hq => by cases hq
  | [x], ha, q, hq => by
    rw [show pairsOf [x] = [[x]] from rfl, List.mem_singleton] at hq
    subst hq
    exact ⟨ha, Nat.le_refl _, by show 1 ≤ 2; omega⟩
  | x :: y :: t, ha, q, hq => by
    rw [show pairsOf (x :: y :: t) = [x, y] :: pairsOf t from rfl] at hq
    rcases List.mem_cons.mp hq with e | e
    · subst e
      exact ⟨digits_cons_intro (digits_cons ha).1 (digits_cons_intro (digits_cons (digits_cons ha).2).1
        digits_nil), by show 1 ≤ 2; omega, Nat.le_refl _⟩
    · exact pairsOf_mem t (digits_cons (digits_cons ha).2).2 q e

theorem pairsOf_tail : ∀ a : List Cell, ∀ q ∈ (pairsOf a).reverse.tail, q.length = 2
  | [], q, hq => by cases hq
  | [x], q, hq => by cases hq
  | x :: y :: t, q, hq => by
    have ih := pairsOf_tail t
    rw [show pairsOf (x :: y :: t) = [x, y] :: pairsOf t from rfl, List.reverse_cons] at hq
    revert ih hq
    generalize (pairsOf t).reverse = rl
    intro hq ih
    cases rl with
    | nil => cases hq
    | cons top rest =>
      have hq' : q ∈ rest ++ [[x, y]] := hq
      rcases List.mem_append.mp hq' with e | e
      · exact ih q e
      · rw [List.mem_singleton] at e
        subst e
        rfl

theorem pairVal_append : ∀ (l1 l2 : List (List Cell)) (N : Nat), pairVal (l1 ++ l2) N = pairVal l2 (pairVal l1 N)
  | [], _, _ => rfl
  | q :: qs, l2, N => pairVal_append qs l2 (rowVal q + 100 * N)

theorem pairVal_reverse : ∀ (l : List (List Cell)) (N : Nat), pairVal l.reverse N = pval l + N * 100 ^ l.length
  | [], N => by
    show N = 0 + N * 100 ^ 0
    rw [Nat.pow_zero, Nat.mul_one, Nat.zero_add]
  | q :: l, N => by
    rw [List.reverse_cons, pairVal_append, pairVal_reverse l N]
    show rowVal q + 100 * (pval l + N * 100 ^ l.length) = (rowVal q + 100 * pval l) + N * 100 ^ (l.length + 1)
    rw [Nat.mul_add, Nat.pow_succ, Nat.mul_left_comm 100 N, Nat.mul_comm 100 (100 ^ l.length)]
    omega

/-- **Correctness (square root).** For a digit row `a` of any length (leading zeros allowed), the
reference writes a digit row `R` with `R² ≤ a < (R+1)²`, and presents only views of `V_SQRT`. -/
theorem sqrt_correct (a : List Cell) (ha : Digits a) :
    Digits (out refStep (sqrtP a)) ∧
    rowVal (out refStep (sqrtP a)) * rowVal (out refStep (sqrtP a)) ≤ rowVal a ∧
    rowVal a < (rowVal (out refStep (sqrtP a)) + 1) * (rowVal (out refStep (sqrtP a)) + 1) ∧
    ∀ x ∈ log refStep (sqrtP a), x.1 ∈ V_SQRT := by
  have hinv : SqInv [] [] 0 := ⟨digits_nil, digits_nil, rfl, Nat.le_refl _, Nat.le_refl _⟩
  have hph : PairsH (pairsOf a).reverse [] [] :=
    ⟨fun q hq => pairsOf_mem a ha q (List.mem_reverse.mp hq), pairsOf_tail a, Or.inl ⟨rfl, rfl⟩⟩
  have hv : pairVal (pairsOf a).reverse 0 = rowVal a := by
    rw [pairVal_reverse, pairsOf_val, Nat.zero_mul, Nat.add_zero]
  obtain ⟨h1, h2, h3, h4⟩ := sqrtGo_ref (pairsOf a).reverse [] [] 0 hinv hph
  rw [hv] at h2 h3
  exact ⟨h1, h2, h3, h4⟩

theorem sqrt_isqrt (a : List Cell) (ha : Digits a) : rowVal (out refStep (sqrtP a)) = isqrtN (rowVal a) := by
  obtain ⟨_, h2, h3, _⟩ := sqrt_correct a ha
  exact isqrt_unique _ _ h2 h3

/-! ### Signed square root: correctness, witnesses, reduction -/

/-- The domain of `signed_isqrt`: not negative (`-0` allowed). -/
def SqDom (a : SNum) : Prop := a.1 = .plus ∨ rowVal a.2 = 0

/-- **Correctness (signed square root).** For a signed number `a` (any length; `+`, or a zero),
the reference writes a well-formed signed number denoting `isqrtN |a|` (Python's
`math.isqrt`), and presents only views of `V_SQRT`. -/
theorem isqrt_correct (a : SNum) (ha : a.WF) (_hdom : SqDom a) :
    (out refStep (isqrtP a)).WF ∧ (out refStep (isqrtP a)).val = (isqrtN a.val.natAbs : Int) ∧
    ∀ x ∈ log refStep (isqrtP a), x.1 ∈ V_SQRT := by
  obtain ⟨o, l⟩ := isqrtP_eq refStep a
  obtain ⟨s1, s2⟩ := abs_step a.1 (SNum.sign_mem ha)
  obtain ⟨g1, _, _, g4⟩ := sqrt_correct a.2 ha.2
  rw [s1] at o l
  refine ⟨?_, ?_, ?_⟩
  · rw [o]; exact ⟨Or.inl rfl, canon_digits _ g1⟩
  · rw [o, val_eq_sval, sval_plus, canon_val, sqrt_isqrt a.2 ha.2,
      show SNum.val a = sval a.1 (rowVal a.2) from rfl, natAbs_sval]
  · rw [l]
    intro x hx
    rcases List.mem_cons.mp hx with e | e
    · subst e; exact sqv_abs s2
    · exact g4 x e

def sqDomb (a : SNum) : Bool := decide (a.1 = .plus) || decide (rowVal a.2 = 0)

theorem sqDom_of_b (a : SNum) (h : sqDomb a = true) : SqDom a := by
  unfold sqDomb at h
  cases h1 : decide (a.1 = .plus) <;> cases h2 : decide (rowVal a.2 = 0) <;> rw [h1, h2] at h <;> simp at h
  all_goals first
    | exact Or.inl (of_decide_eq_true h1)
    | exact Or.inr (of_decide_eq_true h2)

theorem W_SQRT_fst : W_SQRT.map Prod.fst = V_SQRT := by decide +kernel

theorem W_SQRT_ok : ∀ w ∈ W_SQRT, (SNum.wfb w.2 = true ∧ sqDomb w.2 = true) ∧
    w.1 ∈ Prog.views refStep (isqrtP w.2) := by decide +kernel

/-- **Reduction (signed square root).** A stepper runs every square root of a signed number of
every length (`+`, or a zero) exactly as the reference iff it agrees with the reference on the 277
views of `V_SQRT`. -/
theorem reduction_isqrt (f : Stepper) :
    (∀ v ∈ V_SQRT, f v = refStep v) ↔
      ∀ a : SNum, a.WF → SqDom a → steps f (isqrtP a) = steps refStep (isqrtP a) := by
  have h := reduction_of isqrtP (fun a => a.WF ∧ SqDom a) (fun v => v ∈ V_SQRT)
    (fun a ha => (isqrt_correct a ha.1 ha.2).2.2)
    (fun v hv => by
      rw [← W_SQRT_fst] at hv
      exact wit_of_list _ _ W_SQRT (fun w hw =>
        ⟨⟨SNum.wf_of_wfb _ (W_SQRT_ok w hw).1.1, sqDom_of_b _ (W_SQRT_ok w hw).1.2⟩, (W_SQRT_ok w hw).2⟩) v hv) f
  constructor
  · intro hf a ha hd; exact h.mp hf a ⟨ha, hd⟩
  · intro hr; exact h.mpr (fun a ha => hr a ha.1 ha.2)

/-- The square root as an exact procedure (`sqrt(a)`). -/
def sqrtProc : ExactProc1 where
  prog := isqrtP
  dom := SqDom
  views := fun v => v ∈ V_SQRT
  sem := fun x => (isqrtN x.natAbs : Int)
  closed := fun a ha h => (isqrt_correct a ha h).2.2
  wit := fun v hv => by
    rw [← W_SQRT_fst] at hv
    obtain ⟨w, hw, rfl⟩ := List.mem_map.mp hv
    obtain ⟨⟨h1, h2⟩, h3⟩ := W_SQRT_ok w hw
    exact ⟨w.2, SNum.wf_of_wfb _ h1, sqDom_of_b _ h2, h3⟩
  wf := fun a ha h => (isqrt_correct a ha h).1
  correct := fun a ha h => (isqrt_correct a ha h).2.1

end Sketchpad
