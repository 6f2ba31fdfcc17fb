/-
  Sketchpad.Compose — Theorem 5: exact procedures composed are exact.

  Long multiplication is built from partial-product rows (`MUL` scans) and additions (`ADD`
  scans) of shifted rows.  A stepper exact on the `MUL` and `ADD` views of V runs every
  multiplication of digit rows of every length exactly as the reference does (every scan,
  every written symbol), and the reference computes the product.

  Also (issue 7): a carry-select addition — every column evaluated under both carry
  hypotheses (blank and 1) in one parallel batch, then the carries followed by selection only —
  equals the sequential scan, for every stepper whose ADD steps keep the carry in {blank, 1},
  in particular for every stepper exact on the ADD views of V.
-/
module

public import Sketchpad.Correct

@[expose] public noncomputable section

namespace Sketchpad

/-! ### Rows -/

theorem digits_shift (j : Nat) (r : List Cell) (h : Digits r) : Digits (shiftRow j r) := by
  unfold shiftRow
  induction j with
  | zero => exact h
  | succ j ih => exact digits_cons_intro rfl ih

theorem rowVal_shift (r : List Cell) : ∀ j, rowVal (shiftRow j r) = 10 ^ j * rowVal r
  | 0 => by
    show rowVal r = 10 ^ 0 * rowVal r
    rw [Nat.pow_zero, Nat.one_mul]
  | j + 1 => by
    show 0 + 10 * rowVal (shiftRow j r) = 10 ^ (j + 1) * rowVal r
    rw [rowVal_shift r j, Nat.pow_succ, Nat.zero_add, Nat.mul_comm (10 ^ j) 10, Nat.mul_assoc]

theorem mul_row_digits (xs : List Cell) (d : Cell) (hx : Digits xs) (hd : d.isDigit = true) :
    Digits (rowOf (mulRowTrace refStep xs d)) :=
  rowOf_digits _ (mul_row_syms xs d hx hd)

theorem add_digits (xs ys : List Cell) (hx : Digits xs) (hy : Digits ys) :
    Digits (rowOf (addTrace refStep xs ys)) :=
  rowOf_digits _ (add_syms xs ys hx hy)

/-! ### Exactness of the composition -/

theorem mulGo_exact (f : Stepper) (hmul : ∀ v ∈ V_MUL, f v = refStep v)
    (hadd : ∀ v ∈ V_ADD, f v = refStep v) (xs : List Cell) (hx : Digits xs) :
    ∀ (ds : List Cell) (j : Nat) (acc : List Cell), Digits ds → Digits acc →
      mulGo f xs j acc ds = mulGo refStep xs j acc ds := by
  intro ds
  induction ds with
  | nil => intro j acc _ _; rfl
  | cons d ds ih =>
    intro j acc hds hacc
    obtain ⟨hd, hds'⟩ := digits_cons hds
    have e1 : mulRowTrace f xs d = mulRowTrace refStep xs d := mul_row_exact f hmul xs d hx hd
    have hrow : Digits (shiftRow j (rowOf (mulRowTrace refStep xs d))) :=
      digits_shift j _ (mul_row_digits xs d hx hd)
    have e2 : addTrace f acc (shiftRow j (rowOf (mulRowTrace refStep xs d))) =
        addTrace refStep acc (shiftRow j (rowOf (mulRowTrace refStep xs d))) :=
      add_exact f hadd acc _ hacc hrow
    have e3 := ih (j + 1) (rowOf (addTrace refStep acc (shiftRow j (rowOf (mulRowTrace refStep xs d)))))
      hds' (add_digits acc _ hacc hrow)
    simp only [mulGo, e1, e2, e3]

/-- **Theorem 5 (composition: long multiplication).** A stepper that is exact on the `MUL`
views and on the `ADD` views of V runs every long multiplication of digit rows of any lengths
exactly as the reference does: the same result row and the same steps in every scan. -/
theorem mul_exact (f : Stepper) (hmul : ∀ v ∈ V_MUL, f v = refStep v)
    (hadd : ∀ v ∈ V_ADD, f v = refStep v) (xs ys : List Cell) (hx : Digits xs) (hy : Digits ys) :
    mulRun f xs ys = mulRun refStep xs ys := by
  cases ys with
  | nil => rfl
  | cons d ds =>
    obtain ⟨hd, hds⟩ := digits_cons hy
    have e1 : mulRowTrace f xs d = mulRowTrace refStep xs d := mul_row_exact f hmul xs d hx hd
    have e2 := mulGo_exact f hmul hadd xs hx ds 1 (rowOf (mulRowTrace refStep xs d)) hds
      (mul_row_digits xs d hx hd)
    simp only [mulRun, e1, e2]

theorem mulGo_correct (xs : List Cell) (hx : Digits xs) :
    ∀ (ds : List Cell) (j : Nat) (acc : List Cell), Digits ds → Digits acc →
      rowVal (mulGo refStep xs j acc ds).1 = rowVal acc + 10 ^ j * (rowVal xs * rowVal ds) ∧
      Digits (mulGo refStep xs j acc ds).1 := by
  intro ds
  induction ds with
  | nil =>
    intro j acc _ hacc
    refine ⟨?_, hacc⟩
    show rowVal acc = rowVal acc + 10 ^ j * (rowVal xs * 0)
    simp
  | cons d ds ih =>
    intro j acc hds hacc
    obtain ⟨hd, hds'⟩ := digits_cons hds
    have hrow : Digits (shiftRow j (rowOf (mulRowTrace refStep xs d))) :=
      digits_shift j _ (mul_row_digits xs d hx hd)
    obtain ⟨ha, had, _⟩ := add_correct acc (shiftRow j (rowOf (mulRowTrace refStep xs d))) hacc hrow
    obtain ⟨hm, _, _⟩ := mul_row_correct xs d hx hd
    obtain ⟨ihv, ihd⟩ := ih (j + 1)
      (rowOf (addTrace refStep acc (shiftRow j (rowOf (mulRowTrace refStep xs d))))) hds' had
    have hstep : mulGo refStep xs j acc (d :: ds) =
        ((mulGo refStep xs (j + 1)
          (rowOf (addTrace refStep acc (shiftRow j (rowOf (mulRowTrace refStep xs d))))) ds).1,
         mulRowTrace refStep xs d ++ addTrace refStep acc (shiftRow j (rowOf (mulRowTrace refStep xs d))) ++
          (mulGo refStep xs (j + 1)
            (rowOf (addTrace refStep acc (shiftRow j (rowOf (mulRowTrace refStep xs d))))) ds).2) := by
      first | rfl | simp only [mulGo]
    rw [hstep]
    refine ⟨?_, ihd⟩
    show rowVal (mulGo refStep xs (j + 1)
          (rowOf (addTrace refStep acc (shiftRow j (rowOf (mulRowTrace refStep xs d))))) ds).1 =
        rowVal acc + 10 ^ j * (rowVal xs * rowVal (d :: ds))
    rw [ihv, ha, rowVal_shift, hm, rowVal_cons, Nat.pow_succ, Nat.mul_add, Nat.mul_add,
      Nat.mul_left_comm (rowVal xs) 10 (rowVal ds), Nat.mul_assoc (10 ^ j) 10]
    omega

/-- **Theorem 2 (long multiplication).** The reference long multiplication of digit rows of
any lengths (the second one non-empty) writes a digit row denoting the product. -/
theorem mul_correct (xs ys : List Cell) (hx : Digits xs) (hy : Digits ys) (hne : ys ≠ []) :
    rowVal (mulRun refStep xs ys).1 = rowVal xs * rowVal ys ∧ Digits (mulRun refStep xs ys).1 := by
  cases ys with
  | nil => exact (hne rfl).elim
  | cons d ds =>
    obtain ⟨hd, hds⟩ := digits_cons hy
    obtain ⟨hm, hmd, _⟩ := mul_row_correct xs d hx hd
    obtain ⟨hv, hdg⟩ := mulGo_correct xs hx ds 1 (rowOf (mulRowTrace refStep xs d)) hds hmd
    refine ⟨?_, hdg⟩
    show rowVal (mulGo refStep xs 1 (rowOf (mulRowTrace refStep xs d)) ds).1 =
      rowVal xs * rowVal (d :: ds)
    rw [hv, hm, rowVal_cons, Nat.pow_one, Nat.mul_add, Nat.mul_left_comm (rowVal xs) 10 (rowVal ds)]
    try omega

/-- **Theorem 5, end to end.** A stepper exact on the finite sets `V_MUL` and `V_ADD`
multiplies digit rows of every length correctly. -/
theorem mul_exact_correct (f : Stepper) (hmul : ∀ v ∈ V_MUL, f v = refStep v)
    (hadd : ∀ v ∈ V_ADD, f v = refStep v) (xs ys : List Cell) (hx : Digits xs) (hy : Digits ys)
    (hne : ys ≠ []) :
    rowVal (mulRun f xs ys).1 = rowVal xs * rowVal ys := by
  rw [mul_exact f hmul hadd xs ys hx hy]
  exact (mul_correct xs ys hx hy hne).1

/-- **Theorem 5 (general form).** Running one exact procedure on the output of another gives
the output of the reference composition: if `g` agrees with `g*` on every input `P` allows,
and `f*` maps `Q`-inputs to `P`-inputs, any `f` agreeing with `f*` on `Q` composes exactly. -/
theorem compose_exact {α β γ : Type} (Q : α → Prop) (P : β → Prop)
    (f fRef : α → β) (g gRef : β → γ)
    (hf : ∀ a, Q a → f a = fRef a) (hg : ∀ b, P b → g b = gRef b)
    (hpres : ∀ a, Q a → P (fRef a)) :
    ∀ a, Q a → g (f a) = gRef (fRef a) := by
  intro a ha
  rw [hf a ha]
  exact hg _ (hpres a ha)

/-! ### Carry-select addition (issue 7) -/

/-- Every column evaluated under both carry hypotheses: independent views, one batch. -/
def selectPairs (f : Stepper) : Nat → List Cell → List Cell → List (View × Step × View × Step)
  | 0, _, _ => []
  | n + 1, xs, ys =>
    (⟨.ADD, hd xs, hd ys, .blank⟩, f ⟨.ADD, hd xs, hd ys, .blank⟩,
     ⟨.ADD, hd xs, hd ys, .d1⟩, f ⟨.ADD, hd xs, hd ys, .d1⟩) :: selectPairs f n (tl xs) (tl ys)

/-- Follow the carries through the precomputed pairs: selection only, no stepper call. -/
def follow : List (View × Step × View × Step) → Cell → List (View × Step)
  | [], _ => []
  | (v0, s0, v1, s1) :: rest, c =>
    if c = .d1 then
      (if s1.next.isScan then (v1, s1) :: follow rest s1.flag else [(v1, s1)])
    else
      (if s0.next.isScan then (v0, s0) :: follow rest s0.flag else [(v0, s0)])

/-- The carry-select run of an addition. -/
def selectAddTrace (f : Stepper) (xs ys : List Cell) : List (View × Step) :=
  follow (selectPairs f (max xs.length ys.length + 3) xs ys) .blank

theorem follow_eq (f : Stepper)
    (hf : ∀ a ∈ db, ∀ b ∈ db, ∀ c ∈ carries, (f ⟨.ADD, a, b, c⟩).next.isScan = true →
      (f ⟨.ADD, a, b, c⟩).next = .ADD ∧ (f ⟨.ADD, a, b, c⟩).flag ∈ carries) (n : Nat) :
    ∀ (xs ys : List Cell) (c : Cell), Digits xs → Digits ys → c ∈ carries →
      follow (selectPairs f n xs ys) c = trace f n .ADD xs ys c := by
  induction n with
  | zero => intro xs ys c _ _ _; rfl
  | succ n ih =>
    intro xs ys c hx hy hc
    have hsel : ∀ s : Step, s = f ⟨.ADD, hd xs, hd ys, c⟩ →
        follow (selectPairs f (n + 1) xs ys) c =
          (if s.next.isScan then (⟨.ADD, hd xs, hd ys, c⟩, s) ::
              follow (selectPairs f n (tl xs) (tl ys)) s.flag
            else [(⟨.ADD, hd xs, hd ys, c⟩, s)]) := by
      intro s hs
      subst hs
      rcases mem_carries hc with e | e
      · subst e
        first
          | rw [selectPairs, follow, if_neg (show ¬(Cell.blank = Cell.d1) by decide)]
          | simp [selectPairs, follow]
      · subst e
        first
          | rw [selectPairs, follow, if_pos (show Cell.d1 = Cell.d1 from rfl)]
          | simp [selectPairs, follow]
    cases hs : (f ⟨.ADD, hd xs, hd ys, c⟩).next.isScan with
    | false =>
      rw [hsel _ rfl, trace_halt f n .ADD xs ys c hs, hs,
        if_neg (show ¬((false : Bool) = true) by decide)]
    | true =>
      obtain ⟨hnext, hflag⟩ := hf _ (hd_mem_db hx) _ (hd_mem_db hy) c hc hs
      rw [hsel _ rfl, trace_cont f n .ADD xs ys c hs, hs,
        if_pos (show (true : Bool) = true from rfl), hnext,
        ih (tl xs) (tl ys) _ (digits_tl hx) (digits_tl hy) hflag]

/-- **Carry-select = sequential** for every stepper whose ADD steps on digit views keep the
scan in ADD with a carry in {blank, 1}. -/
theorem select_add_eq (f : Stepper)
    (hf : ∀ a ∈ db, ∀ b ∈ db, ∀ c ∈ carries, (f ⟨.ADD, a, b, c⟩).next.isScan = true →
      (f ⟨.ADD, a, b, c⟩).next = .ADD ∧ (f ⟨.ADD, a, b, c⟩).flag ∈ carries)
    (xs ys : List Cell) (hx : Digits xs) (hy : Digits ys) :
    selectAddTrace f xs ys = addTrace f xs ys :=
  follow_eq f hf _ xs ys .blank hx hy (by decide)

/-- **Carry-select, for every stepper exact on the ADD views of V:** the parallel carry-select
addition equals the sequential addition, which equals the reference run. -/
theorem select_add_exact (f : Stepper) (hexact : ∀ v ∈ V_ADD, f v = refStep v)
    (xs ys : List Cell) (hx : Digits xs) (hy : Digits ys) :
    selectAddTrace f xs ys = addTrace f xs ys ∧ addTrace f xs ys = addTrace refStep xs ys := by
  refine ⟨select_add_eq f ?_ xs ys hx hy, add_exact f hexact xs ys hx hy⟩
  intro a ha b hb c hc hs
  have hv := hexact _ (add_grid_in_V a ha b hb c hc)
  rw [hv] at hs ⊢
  exact add_grid_closed a ha b hb c hc hs

end Sketchpad
