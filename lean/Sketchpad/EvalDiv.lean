/-
  Sketchpad.EvalDiv — the expression evaluator (Sketchpad/Evaluator.lean) with every binary
  operation of `sketchpad/expr.py`: `+`, `-`, `*`, `//`, `%` and `gcd(a, b)` (`Op2x`, with the
  exact procedures of Signed.lean, Divide.lean and Gcd.lean), and unary `-`.

  `evaluator_exact` and `evaluator_correct` apply unchanged (`evaluator_div_exact`); this module
  adds the paper's form: a stepper exact on the finite view set V evaluates every expression
  whose leaves are canonical signed digit rows and whose divisors are not zero (the expressions
  Python evaluates) exactly as the reference, and computes its value (`evaluator_div_of_V`).
-/
module

public import Sketchpad.Evaluator
public import Sketchpad.Gcd

@[expose] public noncomputable section

set_option autoImplicit false

namespace Sketchpad

open Prog

/-- The binary operations: `+`, `-`, `*`, `//`, `%`, `gcd`. -/
inductive Op2x where
  | add | sub | mul | quot | rem | gcd

def procs2x : Op2x → ExactProc2
  | .add => addProc
  | .sub => subProc
  | .mul => mulProc
  | .quot => quotProc
  | .rem => remProc
  | .gcd => gcdProc

/-- **Composition, with division, remainder and gcd.** A stepper agrees with the reference on the
views of `+`, `-`, `*`, `//`, `%`, `gcd` and unary `-` iff it evaluates every defined expression
exactly as the reference; it then computes the expression's value (`Int.fdiv`, `Int.fmod` and
the gcd of the magnitudes for `//`, `%`, `gcd`). -/
theorem evaluator_div_exact (f : Stepper) :
    ((∀ v, VE procs1 procs2x v → f v = refStep v) ↔
      ∀ e : Expr Op1 Op2x, Defined procs1 procs2x e →
        steps f (evalP procs1 procs2x e) = steps refStep (evalP procs1 procs2x e)) ∧
    ((∀ v, VE procs1 procs2x v → f v = refStep v) →
      ∀ e : Expr Op1 Op2x, Defined procs1 procs2x e →
        (out f (evalP procs1 procs2x e)).val = Expr.sem procs1 procs2x e) :=
  ⟨evaluator_exact procs1 procs2x f, fun hf e he => evaluator_correct procs1 procs2x f hf e he⟩

/-! ### Every view of these procedures is in V -/

theorem mem_V_of (v : View) (h : v ∈ V_ADD ∨ v ∈ V_SUB ∨ v ∈ V_CMPEQ ∨ v ∈ V_CMPLT ∨ v ∈ V_CMPGT ∨
    v ∈ V_MUL ∨ v ∈ V_ZT ∨ v ∈ V_INC ∨ v ∈ V_ADD2 ∨ v ∈ V_DQ ∨ v ∈ V_ODD ∨ v ∈ V_NEG ∨ v ∈ V_ABS ∨
    v ∈ V_SGNADD ∨ v ∈ V_SGNSUB ∨ v ∈ V_SGNMUL ∨ v ∈ V_SGNDIV) : v ∈ V := by
  unfold V
  simp only [List.mem_append]
  rcases h with h | h | h | h | h | h | h | h | h | h | h | h | h | h | h | h | h <;> simp [h]

theorem VE_div_V (v : View) (h : VE procs1 procs2x v) : v ∈ V := by
  rcases h with ⟨u, hu⟩ | ⟨o, ho⟩
  · exact VE_signed_V v (Or.inl ⟨u, hu⟩)
  · cases o
    · exact VE_signed_V v (Or.inr ⟨.add, ho⟩)
    · exact VE_signed_V v (Or.inr ⟨.sub, ho⟩)
    · exact VE_signed_V v (Or.inr ⟨.mul, ho⟩)
    · rcases (ho : VSDIV v) with h | h | h | h | h <;> apply mem_V_of <;> simp [h]
    · rcases (ho : VSDIV v) with h | h | h | h | h <;> apply mem_V_of <;> simp [h]
    · rcases (ho : VGCD v) with h | h | h
      · apply mem_V_of; simp [h]
      · apply mem_V_of; simp [h]
      · rcases List.mem_append.mp h with h | h
        · apply mem_V_of; simp [(List.mem_filter.mp h).1]
        · apply mem_V_of; simp [h]

/-! ### The expressions Python evaluates are defined -/

/-- Every procedure writes its result's digits as `canon` of a row (for every stepper). -/
theorem sgnAdd_canon (f : Stepper) (op : Op) (a b : SNum) : ∃ r, (out f (sgnAddP op a b)).2 = canon r := by
  by_cases h : (f ⟨op, a.1, b.1, .blank⟩).next = .ADD
  · exact ⟨_, by rw [(sgnAddP_add f op a b h).1]⟩
  · rw [(sgnAddP_cmp f op a b h).1]
    by_cases h2 : (f ⟨op, a.1, b.1, out f (compareP a.2 b.2)⟩).next = .SWAP
    · exact ⟨_, by rw [(sgnCmpK_swap f op a b _ h2).1]⟩
    · exact ⟨_, by rw [(sgnCmpK_sub f op a b _ h2).1]⟩

theorem divmod_canon (f : Stepper) (a b : SNum) :
    (∃ r, (out f (divmodP a b)).1.2 = canon r) ∧ (∃ r, (out f (divmodP a b)).2.2 = canon r) := by
  rw [(divmodP_eq f a b).1, (sdivSgn_eq f a b _).1]
  by_cases h : (f ⟨.SGNDIV, a.1, b.1, out f (zeroP (canon (out f (divP a.2 b.2)).2))⟩).next = .ADJ
  · rw [(sdivAdj_adj f b _ _ _ h).1]; exact ⟨⟨_, rfl⟩, ⟨_, rfl⟩⟩
  · rw [(sdivAdj_halt f b _ _ _ h).1]; exact ⟨⟨_, rfl⟩, ⟨_, rfl⟩⟩

/-- Leaves: well-formed signed numbers whose digits are canonical (as Python's operands). -/
def CLeaves : Expr Op1 Op2x → Prop
  | .lit n => n.WF ∧ DivOK n.2
  | .un _ e => CLeaves e
  | .bin _ e1 e2 => CLeaves e1 ∧ CLeaves e2

/-- No `//` or `%` by an expression whose value is 0 (Python's `InputError`). -/
def DivsNZ : Expr Op1 Op2x → Prop
  | .lit _ => True
  | .un _ e => DivsNZ e
  | .bin o e1 e2 => DivsNZ e1 ∧ DivsNZ e2 ∧
      ((o = .quot ∨ o = .rem) → Expr.sem procs1 procs2x e2 ≠ 0)

theorem divOK_canon (r : List Cell) : DivOK (canon r) := by
  cases r with
  | nil => exact Or.inl rfl
  | cons x xs =>
    show rowVal (x :: stripTop xs) = 0 ∨ topNZ (x :: stripTop xs) = true
    by_cases h0 : stripTop xs = []
    · rw [h0]
      by_cases hx : x = .d0
      · left; rw [hx]; rfl
      · right
        show (!decide (x = .d0)) = true
        rw [decide_eq_false hx]
        rfl
    · right
      rw [topNZ_cons x _ h0]
      exact stripTop_topNZ xs h0

theorem topNZ_of_divOK (n : SNum) (h : DivOK n.2) (hv : n.val ≠ 0) : topNZ n.2 = true := by
  apply divOK_topNZ _ h
  intro h0
  apply hv
  show sval n.1 (rowVal n.2) = 0
  rw [h0]
  unfold sval
  by_cases hs : n.1 = .minus
  · rw [if_pos hs]; rfl
  · rw [if_neg hs]; rfl

/-- The reference result of an expression with canonical leaves has canonical digits. -/
theorem eval_divOK : ∀ e : Expr Op1 Op2x, CLeaves e → DivsNZ e →
    Defined procs1 procs2x e ∧ DivOK (out refStep (evalP procs1 procs2x e)).2
  | .lit n, h, _ => ⟨h.1, h.2⟩
  | .un u e, h, hd => by
    cases u
    obtain ⟨d, c⟩ := eval_divOK e h hd
    refine ⟨⟨d, trivial⟩, ?_⟩
    rw [(evalP_un refStep procs1 procs2x .neg e).1]
    show DivOK (out refStep (negP _)).2
    rw [(negP_eq refStep _).1]
    exact c
  | .bin o e1 e2, h, hd => by
    obtain ⟨d1, c1⟩ := eval_divOK e1 h.1 hd.1
    obtain ⟨d2, c2⟩ := eval_divOK e2 h.2 hd.2.1
    have hnz : (o = .quot ∨ o = .rem) → topNZ (out refStep (evalP procs1 procs2x e2)).2 = true := by
      intro ho
      apply topNZ_of_divOK _ c2
      rw [(eval_ref procs1 procs2x e2 d2).2.1]
      exact hd.2.2 ho
    rw [(evalP_bin refStep procs1 procs2x o e1 e2).1]
    cases o
    · refine ⟨⟨d1, d2, trivial⟩, ?_⟩
      obtain ⟨r, hr⟩ := sgnAdd_canon refStep .SGNADD (out refStep (evalP procs1 procs2x e1))
        (out refStep (evalP procs1 procs2x e2))
      show DivOK (out refStep (sgnAddP .SGNADD _ _)).2
      rw [hr]; exact divOK_canon r
    · refine ⟨⟨d1, d2, trivial⟩, ?_⟩
      obtain ⟨r, hr⟩ := sgnAdd_canon refStep .SGNSUB (out refStep (evalP procs1 procs2x e1))
        (out refStep (evalP procs1 procs2x e2))
      show DivOK (out refStep (sgnAddP .SGNSUB _ _)).2
      rw [hr]; exact divOK_canon r
    · refine ⟨⟨d1, d2, trivial⟩, ?_⟩
      show DivOK (out refStep (sgnMulP _ _)).2
      rw [(sgnMulP_eq refStep _ _).1]; exact divOK_canon _
    · refine ⟨⟨d1, d2, hnz (Or.inl rfl)⟩, ?_⟩
      show DivOK (out refStep (pickP _ _ Prod.fst)).2
      rw [(pickP_eq refStep _ _ Prod.fst).1]
      obtain ⟨r, hr⟩ := (divmod_canon refStep (out refStep (evalP procs1 procs2x e1))
        (out refStep (evalP procs1 procs2x e2))).1
      rw [hr]; exact divOK_canon r
    · refine ⟨⟨d1, d2, hnz (Or.inr rfl)⟩, ?_⟩
      show DivOK (out refStep (pickP _ _ Prod.snd)).2
      rw [(pickP_eq refStep _ _ Prod.snd).1]
      obtain ⟨r, hr⟩ := (divmod_canon refStep (out refStep (evalP procs1 procs2x e1))
        (out refStep (evalP procs1 procs2x e2))).2
      rw [hr]; exact divOK_canon r
    · refine ⟨⟨d1, d2, c2⟩, ?_⟩
      show DivOK (out refStep (gcdP _ _)).2
      rw [(gcdP_eq refStep _ _).1]; exact divOK_canon _

/-- **The paper's form, for `+`, `-`, `*`, `//`, `%`, `gcd` and unary `-`.** A stepper exact on
the finite view set V evaluates every expression whose leaves are canonical signed digit rows of
any lengths and that divides by no zero exactly as the reference (same steps), and computes its
value: `Int.fdiv`/`Int.fmod` for `//`/`%` (Python's floor division), the gcd of the magnitudes for
`gcd`. -/
theorem evaluator_div_of_V (f : Stepper) (hf : ∀ v ∈ V, f v = refStep v)
    (e : Expr Op1 Op2x) (hl : CLeaves e) (hd : DivsNZ e) :
    steps f (evalP procs1 procs2x e) = steps refStep (evalP procs1 procs2x e) ∧
    (out f (evalP procs1 procs2x e)).val = Expr.sem procs1 procs2x e := by
  have hf' : ∀ v, VE procs1 procs2x v → f v = refStep v := fun v h => hf v (VE_div_V v h)
  have hD := (eval_divOK e hl hd).1
  exact ⟨(evaluator_exact procs1 procs2x f).mp hf' e hD, evaluator_correct procs1 procs2x f hf' e hD⟩

end Sketchpad
