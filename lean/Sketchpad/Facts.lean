/-
  Sketchpad.Facts — finite facts about the generated table, each checked by evaluation
  (`decide +kernel`: the kernel itself evaluates the decision procedure; no compiled code is
  trusted and no axiom is added).  These are the only places where the proofs look into the table.

  Cost model (the wasm checker's kernel; see lean/README.md, "Working with the checker"): a
  generated step `step<OP> a b c` costs three `casesOn` reductions, so a fact over a grid of a
  few hundred cell triples takes a second or two; comparing two `View`s costs about a
  millisecond, so no fact searches a view in a list of views: the view lists of V are compared
  once, element by element, with grids built from the cell lists of Basic.lean (`V_ADD_grid`),
  and membership in a grid is proved from its structure (`mem_rowsGrid`).
-/
module

public import Sketchpad.Table
public import Sketchpad.Runtime

@[expose] public noncomputable section

set_option maxRecDepth 100000
set_option maxHeartbeats 0

namespace Sketchpad

/-- The generated view set has the size of views.jsonl. -/
theorem V_length : V.length = V_count := by decide +kernel

/-! ### The grids of views a scan of digit rows can present -/

/-- The views `(op, a, b, c)` of a two-row scan: `a`, `b` digits or blank, `c` a carry. -/
def rowsGrid (op : Op) : List View :=
  db.flatMap fun a => db.flatMap fun b => carries.map fun c => ⟨op, a, b, c⟩

/-- The views of a partial-product row: `a` a digit or blank, `b` the multiplier digit, `c` a
carry below it. -/
def mulGrid : List View :=
  db.flatMap fun a => digitCells.flatMap fun b =>
    (mulCarries.filter (mulOK b)).map fun c => ⟨.MUL, a, b, c⟩

theorem mem_rowsGrid (op : Op) {a b c : Cell} (ha : a ∈ db) (hb : b ∈ db) (hc : c ∈ carries) :
    (⟨op, a, b, c⟩ : View) ∈ rowsGrid op :=
  List.mem_flatMap.mpr ⟨a, ha, List.mem_flatMap.mpr ⟨b, hb, List.mem_map.mpr ⟨c, hc, rfl⟩⟩⟩

theorem mem_mulGrid {a b c : Cell} (ha : a ∈ db) (hb : b ∈ digitCells) (hc : c ∈ mulCarries)
    (hok : mulOK b c = true) : (⟨.MUL, a, b, c⟩ : View) ∈ mulGrid :=
  List.mem_flatMap.mpr ⟨a, ha, List.mem_flatMap.mpr ⟨b, hb,
    List.mem_map.mpr ⟨c, List.mem_filter.mpr ⟨hc, hok⟩, rfl⟩⟩⟩

/-- The generated ADD views of V are exactly the grid (242 = 11 · 11 · 2), in its order. -/
theorem V_ADD_grid : V_ADD = rowsGrid .ADD := by decide +kernel

theorem V_SUB_grid : V_SUB = rowsGrid .SUB := by decide +kernel

/-- The generated MUL views of V are exactly the grid (506 = 11 · 46). -/
theorem V_MUL_grid : V_MUL = mulGrid := by decide +kernel

/-! ### Addition (`ADD`): digit-or-blank cells `a`, `b`, carry blank or 1 -/

/-! ### Addition (`ADD`): digit-or-blank cells `a`, `b`, carry blank or 1 -/

/-- Every ADD view a digit-row scan can present is in V. -/
theorem add_grid_in_V : ∀ a ∈ db, ∀ b ∈ db, ∀ c ∈ carries, (⟨.ADD, a, b, c⟩ : View) ∈ V_ADD := by
  intro a ha b hb c hc
  rw [V_ADD_grid]
  exact mem_rowsGrid .ADD ha hb hc

theorem add_grid_closed : ∀ a ∈ db, ∀ b ∈ db, ∀ c ∈ carries,
    (refStep ⟨.ADD, a, b, c⟩).next.isScan = true →
      (refStep ⟨.ADD, a, b, c⟩).next = .ADD ∧ (refStep ⟨.ADD, a, b, c⟩).flag ∈ carries := by
  decide +kernel

theorem add_sym_db : ∀ v ∈ V_ADD, (refStep v).sym ∈ db := by decide +kernel

theorem W_ADD_fst : W_ADD.map Prod.fst = V_ADD := by decide +kernel

/-- Every ADD view of V is presented by the addition of two digit rows in the Lean model. -/
theorem W_ADD_ok : ∀ w ∈ W_ADD, allDigits w.2.1 = true ∧ allDigits w.2.2 = true ∧
    w.1 ∈ (rowsTrace refStep .ADD w.2.1 w.2.2).map Prod.fst := by
  decide +kernel

/-- The reference ADD step is column addition. -/
theorem add_col : ∀ a ∈ db, ∀ b ∈ db, ∀ c ∈ carries, ¬(a = .blank ∧ b = .blank ∧ c = .blank) →
    refStep ⟨.ADD, a, b, c⟩ =
      ⟨Cell.digit ((a.val + b.val + c.val) % 10), Cell.carry ((a.val + b.val + c.val) / 10), .ADD⟩ := by
  decide +kernel

theorem add_view_halt : refStep ⟨.ADD, .blank, .blank, .blank⟩ = ⟨.blank, .blank, .HALT⟩ := by
  decide +kernel

theorem add_view_carry : refStep ⟨.ADD, .blank, .blank, .d1⟩ = ⟨.d1, .blank, .ADD⟩ := by
  decide +kernel

theorem add_view_one : refStep ⟨.ADD, .d1, .blank, .blank⟩ = ⟨.d1, .blank, .ADD⟩ := by
  decide +kernel

/-! ### Subtraction (`SUB`) -/

theorem sub_grid_in_V : ∀ a ∈ db, ∀ b ∈ db, ∀ c ∈ carries, (⟨.SUB, a, b, c⟩ : View) ∈ V_SUB := by
  intro a ha b hb c hc
  rw [V_SUB_grid]
  exact mem_rowsGrid .SUB ha hb hc

theorem sub_grid_closed : ∀ a ∈ db, ∀ b ∈ db, ∀ c ∈ carries,
    (refStep ⟨.SUB, a, b, c⟩).next.isScan = true →
      (refStep ⟨.SUB, a, b, c⟩).next = .SUB ∧ (refStep ⟨.SUB, a, b, c⟩).flag ∈ carries := by
  decide +kernel

theorem sub_sym_db : ∀ v ∈ V_SUB, (refStep v).sym ∈ db := by decide +kernel

theorem W_SUB_fst : W_SUB.map Prod.fst = V_SUB := by decide +kernel

theorem W_SUB_ok : ∀ w ∈ W_SUB, allDigits w.2.1 = true ∧ allDigits w.2.2 = true ∧
    w.1 ∈ (rowsTrace refStep .SUB w.2.1 w.2.2).map Prod.fst := by
  decide +kernel

/-- The reference SUB step is column subtraction with borrow: `d + b + c = a + 10 · borrow`. -/
theorem sub_col : ∀ a ∈ db, ∀ b ∈ db, ∀ c ∈ carries, ¬(a = .blank ∧ b = .blank) →
    (refStep ⟨.SUB, a, b, c⟩).next = .SUB ∧ (refStep ⟨.SUB, a, b, c⟩).sym.isDigit = true ∧
    (refStep ⟨.SUB, a, b, c⟩).flag ∈ carries ∧
    (refStep ⟨.SUB, a, b, c⟩).sym.val + b.val + c.val =
      a.val + 10 * (refStep ⟨.SUB, a, b, c⟩).flag.val := by
  decide +kernel

/-- At the top of a subtraction the step halts and hands the final borrow up as its flag. -/
theorem sub_top : ∀ c ∈ carries, refStep ⟨.SUB, .blank, .blank, c⟩ = ⟨.blank, c, .HALT⟩ := by
  decide +kernel

/-! ### Partial-product rows (`MUL`): the multiplier digit `b` is fixed along the row -/

theorem mul_grid_in_V : ∀ a ∈ db, ∀ b ∈ digitCells, ∀ c ∈ mulCarries, mulOK b c = true →
    (⟨.MUL, a, b, c⟩ : View) ∈ V_MUL := by
  intro a ha b hb c hc hok
  rw [V_MUL_grid]
  exact mem_mulGrid ha hb hc hok

theorem mul_grid_closed : ∀ a ∈ db, ∀ b ∈ digitCells, ∀ c ∈ mulCarries, mulOK b c = true →
    (refStep ⟨.MUL, a, b, c⟩).next.isScan = true →
      (refStep ⟨.MUL, a, b, c⟩).next = .MUL ∧ (refStep ⟨.MUL, a, b, c⟩).flag ∈ mulCarries ∧
        mulOK b (refStep ⟨.MUL, a, b, c⟩).flag = true := by
  decide +kernel

theorem mul_sym_db : ∀ v ∈ V_MUL, (refStep v).sym ∈ db := by decide +kernel

theorem W_MUL_fst : W_MUL.map Prod.fst = V_MUL := by decide +kernel

theorem W_MUL_ok : ∀ w ∈ W_MUL, allDigits w.2.1 = true ∧ w.2.2.isDigit = true ∧
    w.1 ∈ (mulRowTrace refStep w.2.1 w.2.2).map Prod.fst := by
  decide +kernel

/-- The reference MUL step is one column of `x · b` with carry. -/
theorem mul_col : ∀ a ∈ db, ∀ b ∈ digitCells, ∀ c ∈ mulCarries, mulOK b c = true → a ≠ .blank →
    refStep ⟨.MUL, a, b, c⟩ =
      ⟨Cell.digit ((a.val * b.val + c.val) % 10), Cell.carry ((a.val * b.val + c.val) / 10), .MUL⟩ ∧
    (a.val * b.val + c.val) / 10 < 10 ∧
    Cell.carry ((a.val * b.val + c.val) / 10) ∈ mulCarries ∧
    mulOK b (Cell.carry ((a.val * b.val + c.val) / 10)) = true := by
  decide +kernel

/-- Past the end of the row the pending carry is written, then the row halts. -/
theorem mul_end : ∀ b ∈ digitCells, ∀ c ∈ mulCarries, mulOK b c = true → c ≠ .blank →
    refStep ⟨.MUL, .blank, b, c⟩ = ⟨c, .blank, .MUL⟩ := by
  decide +kernel

theorem mul_halt : ∀ b ∈ digitCells, refStep ⟨.MUL, .blank, b, .blank⟩ = ⟨.blank, .blank, .HALT⟩ := by
  decide +kernel

theorem mulCarries_digit : ∀ c ∈ mulCarries, c ≠ .blank → c.isDigit = true := by decide

theorem mulCarries_val : ∀ c ∈ mulCarries, c.val < 10 := by decide

end Sketchpad
