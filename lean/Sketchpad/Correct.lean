/-
  Sketchpad.Correct — Theorem 2: the reference stepper computes the right numbers, for digit
  rows of every length: addition, subtraction (with its final borrow) and partial-product
  rows.  (The whole product is in Sketchpad.Compose.)
-/
module

public import Sketchpad.Reduction

@[expose] public noncomputable section

namespace Sketchpad

/-! ### Addition -/

theorem add_correct_aux (n : Nat) : ∀ (xs ys : List Cell) (c : Cell),
    Digits xs → Digits ys → c ∈ carries → xs.length + 2 ≤ n → ys.length + 2 ≤ n →
    rowVal (rowOf (trace refStep n .ADD xs ys c)) = rowVal xs + rowVal ys + c.val ∧
    Digits (rowOf (trace refStep n .ADD xs ys c)) ∧
    lastNext (trace refStep n .ADD xs ys c) .ADD = .HALT := by
  induction n with
  | zero => intro xs ys c _ _ _ hnx _; omega
  | succ n ih =>
    intro xs ys c hx hy hc hnx hny
    by_cases hxy : xs = [] ∧ ys = []
    · obtain ⟨rfl, rfl⟩ := hxy
      rcases mem_carries hc with rfl | rfl
      · rw [trace_last refStep n .ADD [] [] .blank ⟨.ADD, .blank, .blank, .blank⟩
          ⟨.blank, .blank, .HALT⟩ rfl add_view_halt rfl]
        refine ⟨?_, ?_, ?_⟩ <;> first | rfl | decide
      · obtain ⟨m, rfl⟩ : ∃ m, n = m + 1 := ⟨n - 1, by
          have h0 : ([] : List Cell).length = 0 := rfl
          omega⟩
        rw [trace_step refStep (m + 1) .ADD [] [] .d1 ⟨.ADD, .blank, .blank, .d1⟩
          ⟨.d1, .blank, .ADD⟩ .ADD [] [] .blank rfl add_view_carry rfl rfl rfl rfl rfl,
          trace_last refStep m .ADD [] [] .blank ⟨.ADD, .blank, .blank, .blank⟩
          ⟨.blank, .blank, .HALT⟩ rfl add_view_halt rfl]
        refine ⟨?_, ?_, ?_⟩ <;> first | rfl | decide
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
      obtain ⟨ihv, ihd, ihl⟩ := ih (tl xs) (tl ys)
        (Cell.carry (((hd xs).val + (hd ys).val + c.val) / 10))
        (digits_tl hx) (digits_tl hy) (carry_mem_carries _ (by omega)) (by omega) (by omega)
      rw [trace_step refStep n .ADD xs ys c ⟨.ADD, hd xs, hd ys, c⟩ _ .ADD (tl xs) (tl ys)
        (Cell.carry (((hd xs).val + (hd ys).val + c.val) / 10)) rfl hcol rfl rfl rfl rfl rfl,
        rowOf_digit_mod]
      refine ⟨?_, digits_cons_intro (Cell.isDigit_digit _ (Nat.mod_lt _ (by decide))) ihd, ?_⟩
      · rw [rowVal_cons (Cell.digit (((hd xs).val + (hd ys).val + c.val) % 10)),
          Cell.val_digit _ (Nat.mod_lt ((hd xs).val + (hd ys).val + c.val) (by decide)), ihv,
          Cell.val_carry (((hd xs).val + (hd ys).val + c.val) / 10) (by omega),
          rowVal_hd_tl xs, rowVal_hd_tl ys]
        omega
      · rw [lastNext_cons]
        exact ihl

/-- **Theorem 2 (addition).** For digit rows `xs`, `ys` of any lengths, the reference
addition writes a digit row denoting `xs + ys`, and the scan ends with `HALT`. -/
theorem add_correct (xs ys : List Cell) (hx : Digits xs) (hy : Digits ys) :
    rowVal (rowOf (addTrace refStep xs ys)) = rowVal xs + rowVal ys ∧
    Digits (rowOf (addTrace refStep xs ys)) ∧
    lastNext (addTrace refStep xs ys) .ADD = .HALT := by
  obtain ⟨h1, h2, h3⟩ := add_correct_aux (max xs.length ys.length + 3) xs ys .blank hx hy
    (by decide)
    (by have := Nat.le_max_left xs.length ys.length; omega)
    (by have := Nat.le_max_right xs.length ys.length; omega)
  have e : Cell.blank.val = 0 := rfl
  rw [e, Nat.add_zero] at h1
  exact ⟨h1, h2, h3⟩

/-! ### Subtraction -/

theorem mul_pow_succ (a k : Nat) : a * (10 ^ k * 10) = 10 * (a * 10 ^ k) := by
  rw [Nat.mul_comm (10 ^ k) 10, Nat.mul_left_comm]

theorem sub_correct_aux (n : Nat) : ∀ (xs ys : List Cell) (c : Cell),
    Digits xs → Digits ys → c ∈ carries → xs.length + 1 ≤ n → ys.length + 1 ≤ n →
    rowVal (rowOf (trace refStep n .SUB xs ys c)) + rowVal ys + c.val =
      rowVal xs + (lastFlag (trace refStep n .SUB xs ys c) c).val *
        10 ^ (rowOf (trace refStep n .SUB xs ys c)).length ∧
    Digits (rowOf (trace refStep n .SUB xs ys c)) ∧
    lastFlag (trace refStep n .SUB xs ys c) c ∈ carries ∧
    lastNext (trace refStep n .SUB xs ys c) .SUB = .HALT := by
  induction n with
  | zero => intro xs ys c _ _ _ hnx _; omega
  | succ n ih =>
    intro xs ys c hx hy hc hnx hny
    by_cases hxy : xs = [] ∧ ys = []
    · obtain ⟨rfl, rfl⟩ := hxy
      rw [trace_last refStep n .SUB [] [] c ⟨.SUB, .blank, .blank, c⟩ ⟨.blank, c, .HALT⟩ rfl
        (sub_top c hc) rfl]
      rw [rowOf_cons_of_eq (⟨.SUB, .blank, .blank, c⟩, ⟨.blank, c, .HALT⟩) [] rfl]
      refine ⟨?_, digits_nil, hc, rfl⟩
      show 0 + 0 + c.val = 0 + c.val * 10 ^ 0
      simp
    · have hne : ¬(hd xs = .blank ∧ hd ys = .blank) := by
        intro ⟨h1, h2⟩
        exact hxy ⟨eq_nil_of_hd_blank hx h1, eq_nil_of_hd_blank hy h2⟩
      obtain ⟨hnext, hsym, hflag, hcol⟩ :=
        sub_col (hd xs) (hd_mem_db hx) (hd ys) (hd_mem_db hy) c hc hne
      have hlx := len_tl xs
      have hly := len_tl ys
      have hpos : 1 ≤ xs.length ∨ 1 ≤ ys.length := by
        cases xs with
        | nil =>
          cases ys with
          | nil => exact (hxy ⟨rfl, rfl⟩).elim
          | cons y ys' => right; show 1 ≤ ys'.length + 1; omega
        | cons x xs' => left; show 1 ≤ xs'.length + 1; omega
      obtain ⟨ihv, ihd, ihf, ihl⟩ := ih (tl xs) (tl ys) (refStep ⟨.SUB, hd xs, hd ys, c⟩).flag
        (digits_tl hx) (digits_tl hy) hflag (by omega) (by omega)
      rw [trace_step refStep n .SUB xs ys c ⟨.SUB, hd xs, hd ys, c⟩ (refStep ⟨.SUB, hd xs, hd ys, c⟩)
        .SUB (tl xs) (tl ys) (refStep ⟨.SUB, hd xs, hd ys, c⟩).flag rfl rfl hnext rfl rfl rfl rfl]
      rw [rowOf_cons_step ⟨.SUB, hd xs, hd ys, c⟩ (refStep ⟨.SUB, hd xs, hd ys, c⟩) _
        (Cell.ne_blank_of_isDigit hsym)]
      refine ⟨?_, digits_cons_intro hsym ihd, ?_, ?_⟩
      · rw [lastFlag_cons, rowVal_cons, List.length_cons, Nat.pow_succ, mul_pow_succ,
          rowVal_hd_tl xs, rowVal_hd_tl ys]
        omega
      · rw [lastFlag_cons]
        exact ihf
      · rw [lastNext_cons, hnext]
        exact ihl

/-- **Theorem 2 (subtraction).** For digit rows `xs`, `ys` of any lengths, the reference
subtraction writes a digit row `r` of length `L` and hands up a final borrow `B` (blank or 1)
with `r + ys = xs + B · 10^L`: so `r` denotes `xs - ys` and `B` is blank exactly when
`ys ≤ xs` (both below `10^L`), as on paper.  The scan ends with `HALT`. -/
theorem sub_correct (xs ys : List Cell) (hx : Digits xs) (hy : Digits ys) :
    rowVal (rowOf (subTrace refStep xs ys)) + rowVal ys =
      rowVal xs + (lastFlag (subTrace refStep xs ys) .blank).val *
        10 ^ (rowOf (subTrace refStep xs ys)).length ∧
    Digits (rowOf (subTrace refStep xs ys)) ∧
    lastFlag (subTrace refStep xs ys) .blank ∈ carries ∧
    lastNext (subTrace refStep xs ys) .SUB = .HALT := by
  obtain ⟨h1, h2, h3, h4⟩ := sub_correct_aux (max xs.length ys.length + 3) xs ys .blank hx hy
    (by decide)
    (by have := Nat.le_max_left xs.length ys.length; omega)
    (by have := Nat.le_max_right xs.length ys.length; omega)
  have e : Cell.blank.val = 0 := rfl
  rw [e, Nat.add_zero] at h1
  exact ⟨h1, h2, h3, h4⟩

/-! ### Partial-product rows -/

theorem mul_row_aux (d : Cell) (hd : d.isDigit = true) (n : Nat) : ∀ (xs : List Cell) (c : Cell),
    Digits xs → c ∈ mulCarries → mulOK d c = true → xs.length + 2 ≤ n →
    rowVal (rowOf (trace refStep n .MUL xs (List.replicate n d) c)) = rowVal xs * d.val + c.val ∧
    Digits (rowOf (trace refStep n .MUL xs (List.replicate n d) c)) ∧
    lastNext (trace refStep n .MUL xs (List.replicate n d) c) .MUL = .HALT := by
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
        refine ⟨?_, digits_nil, rfl⟩
        show 0 = 0 * d.val + 0
        omega
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
        refine ⟨?_, digits_cons_intro (mulCarries_digit c hc hcb) digits_nil, rfl⟩
        show c.val + 10 * 0 = 0 * d.val + c.val
        omega
    | cons x xs' =>
      obtain ⟨hxd, hxs'⟩ := digits_cons hx
      have hxdb : x ∈ db := Cell.mem_db_of_isDigit x hxd
      have hxnb : x ≠ .blank := Cell.ne_blank_of_isDigit hxd
      obtain ⟨hcol, hlt, hcm, hok'⟩ := mul_col x hxdb d hdm c hc hok hxnb
      have hlen : xs'.length + 2 ≤ n := by
        have : (x :: xs').length = xs'.length + 1 := rfl
        omega
      obtain ⟨ihv, ihd, ihl⟩ :=
        ih xs' (Cell.carry ((x.val * d.val + c.val) / 10)) hxs' hcm hok' hlen
      rw [trace_step refStep n .MUL (x :: xs') (List.replicate (n + 1) d) c ⟨.MUL, x, d, c⟩ _ .MUL xs'
        (List.replicate n d) (Cell.carry ((x.val * d.val + c.val) / 10)) rfl hcol rfl rfl rfl rfl rfl,
        rowOf_digit_mod]
      refine ⟨?_, digits_cons_intro (Cell.isDigit_digit _ (Nat.mod_lt _ (by decide))) ihd, ?_⟩
      · rw [rowVal_cons (Cell.digit ((x.val * d.val + c.val) % 10)),
          Cell.val_digit _ (Nat.mod_lt (x.val * d.val + c.val) (by decide)), ihv,
          Cell.val_carry _ hlt, rowVal_cons x xs', Nat.add_mul, Nat.mul_assoc]
        omega
      · rw [lastNext_cons]
        exact ihl

/-- **Theorem 2 (partial-product rows).** For a digit row `xs` of any length and a digit `d`,
the reference writes a digit row denoting `xs · d`, and the scan ends with `HALT`. -/
theorem mul_row_correct (xs : List Cell) (d : Cell) (hx : Digits xs) (hd : d.isDigit = true) :
    rowVal (rowOf (mulRowTrace refStep xs d)) = rowVal xs * d.val ∧
    Digits (rowOf (mulRowTrace refStep xs d)) ∧
    lastNext (mulRowTrace refStep xs d) .MUL = .HALT := by
  obtain ⟨h1, h2, h3⟩ := mul_row_aux d hd (xs.length + 3) xs .blank hx (by decide) (mulOK_blank d) (by omega)
  have e : Cell.blank.val = 0 := rfl
  rw [e, Nat.add_zero] at h1
  exact ⟨h1, h2, h3⟩

end Sketchpad
