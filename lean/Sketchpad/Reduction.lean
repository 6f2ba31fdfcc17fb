/-
  Sketchpad.Reduction — Theorem 1: a stepper is exact on every input of every length iff it
  is exact on the finite view set V (for the scans of addition, subtraction and partial-product
  rows; the product as a whole is in Sketchpad.Compose).

  "If": every view a run presents lies in V (an invariant of the scan, checked on the finite
  grid of cells), and a scan depends on the stepper only through the views it presents.
  "Only if": every view of V has a witness input whose reference run presents it (generated,
  checked in Sketchpad.Facts); if the runs on that input write the same steps, the steppers
  agree on every view the run presented, so a wrong step at that view changes the outcome.
-/
module

public import Sketchpad.Facts

@[expose] public noncomputable section

namespace Sketchpad

/-! ### Two-row scans (addition, subtraction) -/

/-- Soundness of V for a two-row scan: on digit rows, the reference run presents only views
of `Vop`. -/
theorem rows_sound (op : Op) (Vop : List View)
    (hgrid : ∀ a ∈ db, ∀ b ∈ db, ∀ c ∈ carries, (⟨op, a, b, c⟩ : View) ∈ Vop)
    (hclosed : ∀ a ∈ db, ∀ b ∈ db, ∀ c ∈ carries,
      (refStep ⟨op, a, b, c⟩).next.isScan = true →
        (refStep ⟨op, a, b, c⟩).next = op ∧ (refStep ⟨op, a, b, c⟩).flag ∈ carries)
    (n : Nat) (xs ys : List Cell) (c : Cell) (hx : Digits xs) (hy : Digits ys) (hc : c ∈ carries) :
    ∀ p ∈ trace refStep n op xs ys c, p.1 ∈ Vop := by
  refine trace_inv refStep (fun v => v ∈ Vop)
    (fun _ o xs' ys' c' => o = op ∧ Digits xs' ∧ Digits ys' ∧ c' ∈ carries) ?_ ?_
    n op xs ys c ⟨rfl, hx, hy, hc⟩
  · intro m o xs' ys' c' hI
    obtain ⟨ho, hx', hy', hc'⟩ := hI
    subst ho
    exact hgrid _ (hd_mem_db hx') _ (hd_mem_db hy') c' hc'
  · intro m o xs' ys' c' hI hs
    obtain ⟨ho, hx', hy', hc'⟩ := hI
    subst ho
    obtain ⟨h1, h2⟩ := hclosed _ (hd_mem_db hx') _ (hd_mem_db hy') c' hc' hs
    exact ⟨h1, digits_tl hx', digits_tl hy', h2⟩

/-- "If" for a two-row scan, at the level of whole runs (views and steps). -/
theorem rows_exact (op : Op) (Vop : List View)
    (hgrid : ∀ a ∈ db, ∀ b ∈ db, ∀ c ∈ carries, (⟨op, a, b, c⟩ : View) ∈ Vop)
    (hclosed : ∀ a ∈ db, ∀ b ∈ db, ∀ c ∈ carries,
      (refStep ⟨op, a, b, c⟩).next.isScan = true →
        (refStep ⟨op, a, b, c⟩).next = op ∧ (refStep ⟨op, a, b, c⟩).flag ∈ carries)
    (f : Stepper) (hf : ∀ v ∈ Vop, f v = refStep v)
    (xs ys : List Cell) (hx : Digits xs) (hy : Digits ys) :
    rowsTrace f op xs ys = rowsTrace refStep op xs ys :=
  trace_congr f refStep (max xs.length ys.length + 3) op xs ys .blank
    (fun p hp => hf p.1 (rows_sound op Vop hgrid hclosed _ xs ys .blank hx hy (by decide) p hp))

/-- The reduction for a two-row scan, from the finite facts about its op. -/
theorem reduction_rows (op : Op) (Vop : List View) (W : List (View × List Cell × List Cell))
    (hgrid : ∀ a ∈ db, ∀ b ∈ db, ∀ c ∈ carries, (⟨op, a, b, c⟩ : View) ∈ Vop)
    (hclosed : ∀ a ∈ db, ∀ b ∈ db, ∀ c ∈ carries,
      (refStep ⟨op, a, b, c⟩).next.isScan = true →
        (refStep ⟨op, a, b, c⟩).next = op ∧ (refStep ⟨op, a, b, c⟩).flag ∈ carries)
    (hW : W.map Prod.fst = Vop)
    (hWok : ∀ w ∈ W, allDigits w.2.1 = true ∧ allDigits w.2.2 = true ∧
      w.1 ∈ (rowsTrace refStep op w.2.1 w.2.2).map Prod.fst)
    (f : Stepper) :
    (∀ v ∈ Vop, f v = refStep v) ↔
      ∀ xs ys, Digits xs → Digits ys → rowsRun f op xs ys = rowsRun refStep op xs ys := by
  constructor
  · intro hf xs ys hx hy
    unfold rowsRun
    rw [rows_exact op Vop hgrid hclosed f hf xs ys hx hy]
  · intro hrun v hv
    rw [← hW] at hv
    obtain ⟨w, hw, rfl⟩ := List.mem_map.mp hv
    obtain ⟨hx, hy, hpres⟩ := hWok w hw
    obtain ⟨p, hp, hp1⟩ := List.mem_map.mp hpres
    have e := trace_agree_of_eq f refStep (max w.2.1.length w.2.2.length + 3) op w.2.1 w.2.2 .blank
      (hrun w.2.1 w.2.2 hx hy) p hp
    rw [← hp1]
    exact e

/-- **Theorem 1 (addition).** A stepper computes every addition of digit rows of every length
exactly as the reference does iff it agrees with the reference on the 242 `ADD` views of V. -/
theorem reduction_add (f : Stepper) :
    (∀ v ∈ V_ADD, f v = refStep v) ↔
      ∀ xs ys, Digits xs → Digits ys → rowsRun f .ADD xs ys = rowsRun refStep .ADD xs ys :=
  reduction_rows .ADD V_ADD W_ADD add_grid_in_V add_grid_closed W_ADD_fst W_ADD_ok f

/-- **Theorem 1 (subtraction).** The same for `SUB` (the final borrow is the last step's
flag, so it is part of the run). -/
theorem reduction_sub (f : Stepper) :
    (∀ v ∈ V_SUB, f v = refStep v) ↔
      ∀ xs ys, Digits xs → Digits ys → rowsRun f .SUB xs ys = rowsRun refStep .SUB xs ys :=
  reduction_rows .SUB V_SUB W_SUB sub_grid_in_V sub_grid_closed W_SUB_fst W_SUB_ok f

theorem add_exact (f : Stepper) (hf : ∀ v ∈ V_ADD, f v = refStep v)
    (xs ys : List Cell) (hx : Digits xs) (hy : Digits ys) :
    addTrace f xs ys = addTrace refStep xs ys :=
  rows_exact .ADD V_ADD add_grid_in_V add_grid_closed f hf xs ys hx hy

theorem add_sound (xs ys : List Cell) (hx : Digits xs) (hy : Digits ys) :
    ∀ p ∈ addTrace refStep xs ys, p.1 ∈ V_ADD :=
  rows_sound .ADD V_ADD add_grid_in_V add_grid_closed _ xs ys .blank hx hy (by decide)

/-! ### Partial-product rows -/

theorem mul_sound (d : Cell) (hd : d.isDigit = true) (n : Nat) (xs : List Cell) (c : Cell)
    (hx : Digits xs) (hc : c ∈ mulCarries) (hok : mulOK d c = true) :
    ∀ p ∈ trace refStep n .MUL xs (List.replicate n d) c, p.1 ∈ V_MUL := by
  refine trace_inv refStep (fun v => v ∈ V_MUL)
    (fun m o xs' ys' c' => o = .MUL ∧ Digits xs' ∧ ys' = List.replicate m d ∧
      c' ∈ mulCarries ∧ mulOK d c' = true) ?_ ?_
    n .MUL xs (List.replicate n d) c ⟨rfl, hx, rfl, hc, hok⟩
  · intro m o xs' ys' c' hI
    obtain ⟨ho, hx', hy', hc', hok'⟩ := hI
    subst ho hy'
    exact mul_grid_in_V _ (hd_mem_db hx') d (Cell.mem_digitCells_of_isDigit d hd) c' hc' hok'
  · intro m o xs' ys' c' hI hs
    obtain ⟨ho, hx', hy', hc', hok'⟩ := hI
    subst ho hy'
    obtain ⟨h1, h2, h3⟩ :=
      mul_grid_closed _ (hd_mem_db hx') d (Cell.mem_digitCells_of_isDigit d hd) c' hc' hok' hs
    exact ⟨h1, digits_tl hx', rfl, h2, h3⟩

theorem mul_row_exact (f : Stepper) (hf : ∀ v ∈ V_MUL, f v = refStep v)
    (xs : List Cell) (d : Cell) (hx : Digits xs) (hd : d.isDigit = true) :
    mulRowTrace f xs d = mulRowTrace refStep xs d :=
  trace_congr f refStep (xs.length + 3) .MUL xs (List.replicate (xs.length + 3) d) .blank
    (fun p hp => hf p.1 (mul_sound d hd _ xs .blank hx (by decide) (mulOK_blank d) p hp))

/-- **Theorem 1 (partial-product rows).** A stepper computes every row `x · d` (digit row `x`
of any length, digit `d`) exactly as the reference does iff it agrees with the reference on
the 506 `MUL` views of V. -/
theorem reduction_mul_row (f : Stepper) :
    (∀ v ∈ V_MUL, f v = refStep v) ↔
      ∀ xs d, Digits xs → d.isDigit = true → mulRowRun f xs d = mulRowRun refStep xs d := by
  constructor
  · intro hf xs d hx hd
    unfold mulRowRun
    rw [mul_row_exact f hf xs d hx hd]
  · intro hrun v hv
    rw [← W_MUL_fst] at hv
    obtain ⟨w, hw, rfl⟩ := List.mem_map.mp hv
    obtain ⟨hx, hd, hpres⟩ := W_MUL_ok w hw
    obtain ⟨p, hp, hp1⟩ := List.mem_map.mp hpres
    have e := trace_agree_of_eq f refStep (w.2.1.length + 3) .MUL w.2.1
      (List.replicate (w.2.1.length + 3) w.2.2) .blank (hrun w.2.1 w.2.2 hx hd) p hp
    rw [← hp1]
    exact e

/-- Every symbol the reference writes in an addition of digit rows is a digit or blank. -/
theorem add_syms (xs ys : List Cell) (hx : Digits xs) (hy : Digits ys) :
    ∀ p ∈ addTrace refStep xs ys, p.2.sym ∈ db := by
  intro p hp
  rw [trace_snd refStep _ _ _ _ _ p hp]
  exact add_sym_db p.1 (add_sound xs ys hx hy p hp)

theorem mul_row_syms (xs : List Cell) (d : Cell) (hx : Digits xs) (hd : d.isDigit = true) :
    ∀ p ∈ mulRowTrace refStep xs d, p.2.sym ∈ db := by
  intro p hp
  rw [trace_snd refStep _ _ _ _ _ p hp]
  exact mul_sym_db p.1 (mul_sound d hd _ xs .blank hx (by decide) (mulOK_blank d) p hp)

end Sketchpad
