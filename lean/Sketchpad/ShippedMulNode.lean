/-
  Sketchpad.ShippedMulNode — a `*` node of the parallel solve returns the sequential solve's
  result (issue 21): for a stepper exact on V, the parallel product (`mulParB`, the sum tree) and
  the sequential one (`mulP`, the running total) write digit rows of the same value, `x · y`, both
  empty exactly when an operand is; `canonical` of such rows is the same row (`canon_eq`), so the
  signed results are equal.  With `solveB_dout` (ShippedParMul.lean) this puts `*` into the
  default mode's evaluator theorem.
-/
module

public import Sketchpad.ShippedParMul

@[expose] public noncomputable section

set_option autoImplicit false

namespace Sketchpad

open Prog Drive

variable {α : Type}

/-! ### `canonical` depends only on the value -/

theorem cell_eq_of_val : ∀ x ∈ digitCells, ∀ y ∈ digitCells, x.val = y.val → x = y := by
  decide +kernel

theorem stripTop_zero : ∀ ys : List Cell, Digits ys → rowVal ys = 0 → stripTop ys = []
  | [], _, _ => rfl
  | y :: ys, hd, h0 => by
    obtain ⟨hy, hys⟩ := digits_cons hd
    rw [rowVal_cons] at h0
    have h1 : rowVal ys = 0 := by omega
    have h2 : y.val = Cell.d0.val := by
      have : y.val = 0 := by omega
      exact this
    have hy0 : y = .d0 := cell_eq_of_val y (Cell.mem_digitCells_of_isDigit y hy) .d0 (by decide) h2
    rw [stripTop_cons, if_pos ⟨stripTop_zero ys hys h1, hy0⟩]

theorem stripTop_eq : ∀ xs ys : List Cell, Digits xs → Digits ys → rowVal xs = rowVal ys →
    stripTop xs = stripTop ys
  | [], ys, _, hy, h => by
    rw [stripTop_nil, stripTop_zero ys hy h.symm]
  | x :: xs, [], hx, _, h => by
    rw [stripTop_nil, stripTop_zero (x :: xs) hx h]
  | x :: xs, y :: ys, hx, hy, h => by
    obtain ⟨hx1, hxs⟩ := digits_cons hx
    obtain ⟨hy1, hys⟩ := digits_cons hy
    rw [rowVal_cons, rowVal_cons] at h
    have hx9 := Cell.val_le x
    have hy9 := Cell.val_le y
    have e1 : x.val = y.val := by omega
    have e2 : rowVal xs = rowVal ys := by omega
    have exy : x = y := cell_eq_of_val x (Cell.mem_digitCells_of_isDigit x hx1) y
      (Cell.mem_digitCells_of_isDigit y hy1) e1
    rw [stripTop_cons, stripTop_cons, stripTop_eq xs ys hxs hys e2, exy]

/-- **`canonical` of a non-empty digit row depends only on its value.** -/
theorem canon_eq (a b : List Cell) (ha : Digits a) (hb : Digits b) (hane : a ≠ []) (hbne : b ≠ [])
    (h : rowVal a = rowVal b) : canon a = canon b := by
  cases a with
  | nil => exact absurd rfl hane
  | cons x xs =>
    cases b with
    | nil => exact absurd rfl hbne
    | cons y ys =>
      obtain ⟨hx1, hxs⟩ := digits_cons ha
      obtain ⟨hy1, hys⟩ := digits_cons hb
      rw [rowVal_cons, rowVal_cons] at h
      have hx9 := Cell.val_le x
      have hy9 := Cell.val_le y
      have e1 : x.val = y.val := by omega
      have e2 : rowVal xs = rowVal ys := by omega
      have exy : x = y := cell_eq_of_val x (Cell.mem_digitCells_of_isDigit x hx1) y
        (Cell.mem_digitCells_of_isDigit y hy1) e1
      show x :: stripTop xs = y :: stripTop ys
      rw [stripTop_eq xs ys hxs hys e2, exy]

/-! ### Empty operands: both products are the empty row -/

theorem mulRow_nil (d : Cell) (hd : d.isDigit = true) : rowOf (mulRowTrace refStep [] d) = [] := by
  have hdm : d ∈ digitCells := Cell.mem_digitCells_of_isDigit d hd
  show rowOf (trace refStep (2 + 1) .MUL [] (List.replicate (2 + 1) d) .blank) = []
  rw [trace_last refStep 2 .MUL [] (List.replicate (2 + 1) d) .blank ⟨.MUL, .blank, d, .blank⟩
    ⟨.blank, .blank, .HALT⟩ rfl (mul_halt d hdm) rfl,
    rowOf_cons_of_eq (⟨.MUL, .blank, d, .blank⟩, ⟨.blank, .blank, .HALT⟩) [] rfl]
  rfl

theorem addNil_row : rowOf (addTrace refStep [] []) = [] := by
  show rowOf (trace refStep (2 + 1) .ADD [] [] .blank) = []
  rw [trace_last refStep 2 .ADD [] [] .blank ⟨.ADD, .blank, .blank, .blank⟩ ⟨.blank, .blank, .HALT⟩ rfl
    add_view_halt rfl,
    rowOf_cons_of_eq (⟨.ADD, .blank, .blank, .blank⟩, ⟨.blank, .blank, .HALT⟩) [] rfl]
  rfl

def AllNil : List (List Cell × Nat) → Prop
  | [] => True
  | p :: t => p.1 = [] ∧ AllNil t

theorem pairSum_nil (f : Stepper) (hadd : ∀ v ∈ V_ADD, f v = refStep v) (p q : List Cell × Nat)
    (hp : p.1 = []) (hq : q.1 = []) : pairSum (p, q) (followScan f (pairScan (p, q))) = ([], p.2) := by
  have hp' : Digits p.1 := by rw [hp]; exact digits_nil
  have hq' : Digits q.1 := by rw [hq]; exact digits_nil
  obtain ⟨e1, e2⟩ := sel_add_exact f hadd (p.1.drop (q.2 - p.2)) q.1 (digits_drop _ hp') hq'
  have hf : followScan f (pairScan (p, q)) = addTrace refStep (p.1.drop (q.2 - p.2)) q.1 := by
    rw [followScan_eq]
    show selRowsTrace f .ADD (p.1.drop (q.2 - p.2)) q.1 = _
    rw [e1, e2]
  rw [hf]
  show (p.1.take (q.2 - p.2) ++ rowOf (addTrace refStep (p.1.drop (q.2 - p.2)) q.1), p.2) = ([], p.2)
  rw [hp, hq, List.drop_nil, List.take_nil, addNil_row]
  rfl

theorem levelB_nil_rows (f : Stepper) (hadd : ∀ v ∈ V_ADD, f v = refStep v) :
    ∀ l : List (List Cell × Nat), AllNil l → AllNil (levelB f l)
  | [], h => h
  | [_], h => h
  | p :: q :: rest, h => by
    obtain ⟨hp, hq, hr⟩ := h
    rw [levelB_cons2, pairSum_nil f hadd p q hp hq]
    exact ⟨rfl, levelB_nil_rows f hadd rest hr⟩

theorem sumTreeB_nil_rows (f : Stepper) (hadd : ∀ v ∈ V_ADD, f v = refStep v) (K : List Cell → PB α) :
    ∀ (n : Nat) (l : List (List Cell × Nat)), AllNil l → dout f (sumTreeB K n l).drive = dout f (K []).drive
  | 0, [], _ => rfl
  | 0, p :: _, h => by
    show dout f (K p.1).drive = _
    rw [h.1]
  | n + 1, [], _ => rfl
  | n + 1, [p], h => by
    show dout f (K p.1).drive = _
    rw [h.1]
  | n + 1, p :: q :: rest, h => by
    have e : dout f (sumTreeB K (n + 1) (p :: q :: rest)).drive =
        dout f (sumTreeB K n (levelB f (p :: q :: rest))).drive := rfl
    rw [e]
    exact sumTreeB_nil_rows f hadd K n _ (levelB_nil_rows f hadd _ h)

theorem withCols_nil_rows : ∀ (j : Nat) (ys : List Cell), Digits ys →
    AllNil (withCols j (ys.map (rowOf ∘ mulRowTrace refStep [])))
  | _, [], _ => trivial
  | j, d :: ds, h => by
    show rowOf (mulRowTrace refStep [] d) = [] ∧ AllNil (withCols (j + 1) (ds.map (rowOf ∘ mulRowTrace refStep [])))
    exact ⟨mulRow_nil d (digits_cons h).1, withCols_nil_rows (j + 1) ds (digits_cons h).2⟩

theorem mulParB_nil (f : Stepper) (hmul : ∀ v ∈ V_MUL, f v = refStep v) (hadd : ∀ v ∈ V_ADD, f v = refStep v)
    (ys : List Cell) (hy : Digits ys) (K : List Cell → PB α) :
    dout f (mulParB [] ys K).drive = dout f (K []).drive := by
  have e : dout f (mulParB [] ys K).drive =
      dout f (sumTreeB K ys.length (withCols 0 (((ys.map (mulRowScan [])).map (followScan f)).map rowOf))).drive := rfl
  rw [e, mulRows_map f hmul [] digits_nil ys hy, List.map_map]
  exact sumTreeB_nil_rows f hadd K _ _ (withCols_nil_rows 0 ys hy)

/-! ### The sequential product's row -/

theorem addChain_nil_rows : ∀ (rs : List (List Cell)) (j : Nat), (∀ r ∈ rs, r = []) →
    out refStep (addChainP j [] rs) = []
  | [], _, _ => rfl
  | r :: rs, j, h => by
    have hr : r = [] := h r (List.Mem.head _)
    subst hr
    show out refStep ((rowsP .ADD (([] : List Cell).drop j) []).bind fun t =>
      addChainP (j + 1) (([] : List Cell).take j ++ rowOf t) rs) = []
    rw [out_bind, List.drop_nil, List.take_nil, rowsP_out]
    show out refStep (addChainP (j + 1) ([] ++ rowOf (addTrace refStep [] [])) rs) = []
    rw [addNil_row]
    exact addChain_nil_rows rs (j + 1) (fun r' hr' => h r' (List.Mem.tail _ hr'))

theorem addChain_len (f : Stepper) : ∀ (rs : List (List Cell)) (j : Nat) (total : List Cell),
    1 ≤ j → 1 ≤ total.length → 1 ≤ (out f (addChainP j total rs)).length
  | [], _, _, _, hl => hl
  | r :: rs, j, total, hj, hl => by
    show 1 ≤ (out f ((rowsP .ADD (total.drop j) r).bind fun t =>
      addChainP (j + 1) (total.take j ++ rowOf t) rs)).length
    rw [out_bind]
    refine addChain_len f rs (j + 1) _ (by omega) ?_
    rw [List.length_append, List.length_take]
    have : 1 ≤ min j total.length := Nat.le_min.mpr ⟨hj, hl⟩
    omega

/-- The sequential product for a stepper exact on V is the reference's. -/
theorem mulP_exact (f : Stepper) (hf : ∀ v ∈ V, f v = refStep v) (xs ys : List Cell) (hx : Digits xs)
    (hy : Digits ys) : out f (mulP xs ys) = out refStep (mulP xs ys) :=
  (run_exact f (fun v => v ∈ V) (mulP xs ys) (fun p hp => by
    rcases mul_closed xs ys hx hy p hp with h | h
    · exact mem_V_of p.1 (Or.inr (Or.inr (Or.inr (Or.inr (Or.inr (Or.inl h))))))
    · exact mem_V_of p.1 (Or.inl (List.mem_filter.mp h).1)) hf).1

/-! ### The `*` node -/

/-- **A `*` node: parallel = sequential**, for every stepper exact on V and all operands with
digit rows (of any lengths, empty included). -/
theorem mul_node (f : Stepper) (hf : ∀ v ∈ V, f v = refStep v) (x y : SNum) (hx : Digits x.2)
    (hy : Digits y.2) : dout f (binB true .mul x y).drive = dout f (binB false .mul x y).drive := by
  have hmul : ∀ v ∈ V_MUL, f v = refStep v :=
    fun v h => hf v (mem_V_of v (Or.inr (Or.inr (Or.inr (Or.inr (Or.inr (Or.inl h)))))))
  have hadd : ∀ v ∈ V_ADD, f v = refStep v := fun v h => hf v (mem_V_of v (Or.inl h))
  have r1 : dout f (binB false .mul x y).drive = Except.ok (out f (sgnMulP x y)) := by
    rw [(PB.seq_flat f _ (noPar_binB .mul x y)).2]
    show out f ((sgnMulB false x y).bind fun r => PB.done (Except.ok r)).seq = _
    rw [(PB.seq_bind (sgnMulB false x y) (fun r => PB.done (Except.ok (ε := PyErr) r)) f).1, out_bind,
      (sgnMulB_seq f x y).1]
    rfl
  rw [r1, (sgnMulP_eq f x y).1, mulP_exact f hf x.2 y.2 hx hy]
  have e1 : dout f (binB true .mul x y).drive = Except.ok (dout f (sgnMulB true x y).drive) := by
    show dout f ((sgnMulB true x y).bind fun r => PB.done (Except.ok r)).drive = _
    rw [PB.dout_bind]
    rfl
  have e2 : dout f (sgnMulB true x y).drive = dout f (mulParB x.2 y.2
      (fun r => PB.done ((f ⟨.SGNMUL, x.1, y.1, .blank⟩).sym, canon r))).drive := rfl
  rw [e1, e2]
  obtain ⟨sx, xs⟩ := x
  obtain ⟨sy, ys⟩ := y
  show Except.ok (dout f (mulParB xs ys
      (fun r => PB.done ((f ⟨.SGNMUL, sx, sy, .blank⟩).sym, canon r))).drive) =
    Except.ok ((f ⟨.SGNMUL, sx, sy, .blank⟩).sym, canon (out refStep (mulP xs ys)))
  have hseq := (mulP_eq refStep xs ys).1
  by_cases hyn : ys = []
  · subst hyn
    rw [hseq]
    rfl
  · by_cases hxn : xs = []
    · subst hxn
      rw [mulParB_nil f hmul hadd ys hy, hseq]
      have hrows : ∀ r ∈ ys.map (fun d => rowOf (mulRowTrace refStep [] d)), r = [] := by
        intro r hr
        obtain ⟨d, hd, rfl⟩ := List.mem_map.mp hr
        exact mulRow_nil d ((digits_iff ys).mp hy d hd)
      cases ys with
      | nil => exact absurd rfl hyn
      | cons d ds =>
        have ef : mulFinish ((d :: ds).map fun d => rowOf (mulRowTrace refStep [] d)) =
            addChainP 1 (rowOf (mulRowTrace refStep [] d)) (ds.map fun d => rowOf (mulRowTrace refStep [] d)) := rfl
        rw [ef, mulRow_nil d (digits_cons hy).1,
          addChain_nil_rows _ 1 (fun r hr => hrows r (List.Mem.tail _ hr))]
        rfl
    · obtain ⟨R, rv, rd, rne, ro⟩ := mulParB_out f hmul hadd xs ys hx hy hxn hyn
        (fun r => PB.done ((f ⟨.SGNMUL, sx, sy, .blank⟩).sym, canon r))
      rw [ro]
      obtain ⟨sv, sd⟩ := mulP_val xs ys hx hy
      have sne : out refStep (mulP xs ys) ≠ [] := by
        rw [hseq]
        cases ys with
        | nil => exact absurd rfl hyn
        | cons d ds =>
          have ef : mulFinish ((d :: ds).map fun d => rowOf (mulRowTrace refStep xs d)) =
              addChainP 1 (rowOf (mulRowTrace refStep xs d)) (ds.map fun d => rowOf (mulRowTrace refStep xs d)) := rfl
          rw [ef]
          have h1 := (mul_row_len xs d hx (digits_cons hy).1).1
          have h2 : xs.length ≠ 0 := fun h => hxn (List.eq_nil_of_length_eq_zero h)
          have h3 := addChain_len refStep (ds.map fun d => rowOf (mulRowTrace refStep xs d)) 1
            (rowOf (mulRowTrace refStep xs d)) (Nat.le_refl 1) (by omega)
          intro h0
          rw [h0] at h3
          exact absurd h3 (by decide)
      show Except.ok ((f ⟨.SGNMUL, sx, sy, .blank⟩).sym, canon R) = _
      rw [canon_eq R (out refStep (mulP xs ys)) rd sd rne sne (by rw [rv, sv])]

/-! ### The default mode's evaluator theorem, with `*` -/

/-- The sequential solve's operands are digit rows (for a stepper exact on V). -/
theorem solveB_seq_digits (f : Stepper) (hf : ∀ v ∈ V, f v = refStep v) (L : Limits) (e : Expr Op1x Op2x)
    (hl : CLeavesX e) (hd : PyOK e) (x : SNum) (h : dout f (solveB false L e).drive = .ok x) : Digits x.2 := by
  rw [(PB.seq_flat f _ (noPar_solveB L e)).2] at h
  obtain ⟨i1, _⟩ := solveB_seq f L e x h
  have w := (eval_ref procs1x procs2x e (eval_all_ok e hl hd).1).1
  have eo : out f (evalP procs1x procs2x e) = out refStep (evalP procs1x procs2x e) :=
    (out_eq_of_steps f refStep _ (evaluator_all_of_V f hf e hl hd).1).1
  rw [i1, eo]
  exact w.2

/-- **The parallel solve (the default mode) returns the sequential solve's result, for every
expression, `*` included**: for a stepper exact on V under which Python's parallel run raises no
`StepperFault`, and every expression Python evaluates (canonical leaves, no division by zero, no
square root of a negative number), the same value or `InputError`. -/
theorem solve_par_seq_all (f : Stepper) (hf : ∀ v ∈ V, f v = refStep v) (L : Limits) (e : Expr Op1x Op2x)
    (hl : CLeavesX e) (hd : PyOK e) (hfam : (solveTop true L e).FamOK f) :
    dout f (solveTop true L e).drive = dout f (solveTop false L e).drive :=
  solveTop_dout f L (fun e => CLeavesX e ∧ PyOK e) (fun _ _ h => ⟨h.1, h.2.1⟩)
    (fun _ _ _ h => ⟨⟨h.1.1, h.2.1⟩, ⟨h.1.2, h.2.2.1⟩⟩)
    (fun e1 e2 x y hp h1 h2 _ => mul_node f hf x y
      (solveB_seq_digits f hf L e1 hp.1.1 hp.2.1 x h1) (solveB_seq_digits f hf L e2 hp.1.2 hp.2.2.1 y h2))
    e ⟨hl, hd⟩ hfam

/-- **The default mode's own theorem, every operation**: a stepper exact on the finite view set V
whose parallel run raises no `StepperFault` evaluates every expression Python evaluates
(`+ − * // %`, `sqrt`, `gcd`, negation; canonical signed leaves of any lengths) in the parallel
mode to the expression's value. -/
theorem solve_par_all_of_V (f : Stepper) (hf : ∀ v ∈ V, f v = refStep v) (L : Limits) (e : Expr Op1x Op2x)
    (hl : CLeavesX e) (hd : PyOK e) (hfam : (solveTop true L e).FamOK f) (x : SNum)
    (hx : dout f (solveTop true L e).drive = .ok x) : x.val = Expr.sem procs1x procs2x e := by
  rw [solve_par_seq_all f hf L e hl hd hfam] at hx
  obtain ⟨_, g2⟩ := solve_seq_eval f L e x hx
  rw [g2]
  exact (evaluator_all_of_V f hf e hl hd).2

end Sketchpad
