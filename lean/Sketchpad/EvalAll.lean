/-
  Sketchpad.EvalAll — the expression evaluator (Sketchpad/Evaluator.lean) with every operation
  of `sketchpad/expr.py`: `+`, `-`, `*`, `//`, `%`, `gcd(a, b)` (`Op2x`, Sketchpad/EvalDiv.lean)
  and unary `-`, `sqrt(a)` (`Op1x`, with the exact procedures of Signed.lean and Sqrt.lean).

  `evaluator_all_exact`: exact on the union of the procedures' views iff exact on every defined
  expression, and then correct.  `evaluator_all_of_V`, the paper's form: a stepper exact on the
  finite view set V evaluates every expression Python evaluates (canonical signed leaves of any
  lengths, no division by zero, no square root of a negative number) exactly as the reference,
  and computes its value.
-/
module

public import Sketchpad.EvalDiv
public import Sketchpad.Sqrt

@[expose] public noncomputable section

set_option autoImplicit false

namespace Sketchpad

open Prog

/-- The unary operations: `-` and `sqrt`. -/
inductive Op1x where
  | neg | sqrt

def procs1x : Op1x → ExactProc1
  | .neg => negProc
  | .sqrt => sqrtProc

/-- **Composition, every operation.** A stepper agrees with the reference on the views of `+`,
`-`, `*`, `//`, `%`, `gcd`, unary `-` and `sqrt` iff it evaluates every defined expression exactly
as the reference; it then computes the expression's value. -/
theorem evaluator_all_exact (f : Stepper) :
    ((∀ v, VE procs1x procs2x v → f v = refStep v) ↔
      ∀ e : Expr Op1x Op2x, Defined procs1x procs2x e →
        steps f (evalP procs1x procs2x e) = steps refStep (evalP procs1x procs2x e)) ∧
    ((∀ v, VE procs1x procs2x v → f v = refStep v) →
      ∀ e : Expr Op1x Op2x, Defined procs1x procs2x e →
        (out f (evalP procs1x procs2x e)).val = Expr.sem procs1x procs2x e) :=
  ⟨evaluator_exact procs1x procs2x f, fun hf e he => evaluator_correct procs1x procs2x f hf e he⟩

theorem V_SQRT_V (v : View) (h : v ∈ V_SQRT) : v ∈ V := by
  unfold V_SQRT at h
  simp only [List.mem_append] at h
  rcases h with ((((((h | h) | h) | h) | h) | h) | h)
  · apply mem_V_of; simp [(List.mem_filter.mp h).1]
  · apply mem_V_of; simp [(List.mem_filter.mp h).1]
  · apply mem_V_of; simp [(List.mem_filter.mp h).1]
  · apply mem_V_of; simp [h]
  · apply mem_V_of; simp [h]
  · apply mem_V_of; simp [h]
  · apply mem_V_of; simp [h]

theorem VE_all_V (v : View) (h : VE procs1x procs2x v) : v ∈ V := by
  rcases h with ⟨u, hu⟩ | ⟨o, ho⟩
  · cases u
    · exact VE_signed_V v (Or.inl ⟨.neg, hu⟩)
    · exact V_SQRT_V v hu
  · exact VE_div_V v (Or.inr ⟨o, ho⟩)

/-- Leaves: well-formed signed numbers with canonical digits (as Python's operands). -/
def CLeavesX : Expr Op1x Op2x → Prop
  | .lit n => n.WF ∧ DivOK n.2
  | .un _ e => CLeavesX e
  | .bin _ e1 e2 => CLeavesX e1 ∧ CLeavesX e2

/-- What Python evaluates without an `InputError`: no `//` or `%` by zero, no square root of a
negative number. -/
def PyOK : Expr Op1x Op2x → Prop
  | .lit _ => True
  | .un u e => PyOK e ∧ (u = .sqrt → 0 ≤ Expr.sem procs1x procs2x e)
  | .bin o e1 e2 => PyOK e1 ∧ PyOK e2 ∧
      ((o = .quot ∨ o = .rem) → Expr.sem procs1x procs2x e2 ≠ 0)

theorem sqDom_of_nonneg (n : SNum) (hw : n.WF) (h : 0 ≤ n.val) : SqDom n := by
  rcases hw.1 with hs | hs
  · exact Or.inl hs
  · right
    have e : n.val = -((rowVal n.2 : Nat) : Int) := by
      show sval n.1 (rowVal n.2) = _
      unfold sval
      rw [if_pos hs]
    rw [e] at h
    omega

/-- Every expression Python evaluates is defined, and its reference result has canonical digits. -/
theorem eval_all_ok : ∀ e : Expr Op1x Op2x, CLeavesX e → PyOK e →
    Defined procs1x procs2x e ∧ DivOK (out refStep (evalP procs1x procs2x e)).2
  | .lit n, h, _ => ⟨h.1, h.2⟩
  | .un u e, h, hd => by
    obtain ⟨d, c⟩ := eval_all_ok e h hd.1
    rw [(evalP_un refStep procs1x procs2x u e).1]
    cases u
    · refine ⟨⟨d, trivial⟩, ?_⟩
      show DivOK (out refStep (negP _)).2
      rw [(negP_eq refStep _).1]
      exact c
    · have hw := (eval_ref procs1x procs2x e d).1
      have hv := (eval_ref procs1x procs2x e d).2.1
      refine ⟨⟨d, sqDom_of_nonneg _ hw (by rw [hv]; exact hd.2 rfl)⟩, ?_⟩
      show DivOK (out refStep (isqrtP _)).2
      rw [(isqrtP_eq refStep _).1]
      exact divOK_canon _
  | .bin o e1 e2, h, hd => by
    obtain ⟨d1, c1⟩ := eval_all_ok e1 h.1 hd.1
    obtain ⟨d2, c2⟩ := eval_all_ok e2 h.2 hd.2.1
    have hnz : (o = .quot ∨ o = .rem) → topNZ (out refStep (evalP procs1x procs2x e2)).2 = true := by
      intro ho
      apply topNZ_of_divOK _ c2
      rw [(eval_ref procs1x procs2x e2 d2).2.1]
      exact hd.2.2 ho
    rw [(evalP_bin refStep procs1x procs2x o e1 e2).1]
    cases o
    · refine ⟨⟨d1, d2, trivial⟩, ?_⟩
      obtain ⟨r, hr⟩ := sgnAdd_canon refStep .SGNADD (out refStep (evalP procs1x procs2x e1))
        (out refStep (evalP procs1x procs2x e2))
      show DivOK (out refStep (sgnAddP .SGNADD _ _)).2
      rw [hr]; exact divOK_canon r
    · refine ⟨⟨d1, d2, trivial⟩, ?_⟩
      obtain ⟨r, hr⟩ := sgnAdd_canon refStep .SGNSUB (out refStep (evalP procs1x procs2x e1))
        (out refStep (evalP procs1x procs2x e2))
      show DivOK (out refStep (sgnAddP .SGNSUB _ _)).2
      rw [hr]; exact divOK_canon r
    · refine ⟨⟨d1, d2, trivial⟩, ?_⟩
      show DivOK (out refStep (sgnMulP _ _)).2
      rw [(sgnMulP_eq refStep _ _).1]; exact divOK_canon _
    · refine ⟨⟨d1, d2, hnz (Or.inl rfl)⟩, ?_⟩
      show DivOK (out refStep (pickP _ _ Prod.fst)).2
      rw [(pickP_eq refStep _ _ Prod.fst).1]
      obtain ⟨r, hr⟩ := (divmod_canon refStep (out refStep (evalP procs1x procs2x e1))
        (out refStep (evalP procs1x procs2x e2))).1
      rw [hr]; exact divOK_canon r
    · refine ⟨⟨d1, d2, hnz (Or.inr rfl)⟩, ?_⟩
      show DivOK (out refStep (pickP _ _ Prod.snd)).2
      rw [(pickP_eq refStep _ _ Prod.snd).1]
      obtain ⟨r, hr⟩ := (divmod_canon refStep (out refStep (evalP procs1x procs2x e1))
        (out refStep (evalP procs1x procs2x e2))).2
      rw [hr]; exact divOK_canon r
    · refine ⟨⟨d1, d2, c2⟩, ?_⟩
      show DivOK (out refStep (gcdP _ _)).2
      rw [(gcdP_eq refStep _ _).1]; exact divOK_canon _

/-- **The paper's form, every operation.** A stepper exact on the finite view set V evaluates
every expression of `+`, `-`, `*`, `//`, `%`, `gcd`, unary `-` and `sqrt` that Python evaluates
(canonical signed leaves of any lengths, no division by zero, no square root of a negative
number) exactly as the reference — the same steps, hence the same sheets — and computes its value
(`Int.fdiv`/`Int.fmod` for `//`/`%`, the gcd of the magnitudes, `isqrtN`). -/
theorem evaluator_all_of_V (f : Stepper) (hf : ∀ v ∈ V, f v = refStep v)
    (e : Expr Op1x Op2x) (hl : CLeavesX e) (hd : PyOK e) :
    steps f (evalP procs1x procs2x e) = steps refStep (evalP procs1x procs2x e) ∧
    (out f (evalP procs1x procs2x e)).val = Expr.sem procs1x procs2x e := by
  have hf' : ∀ v, VE procs1x procs2x v → f v = refStep v := fun v h => hf v (VE_all_V v h)
  have hD := (eval_all_ok e hl hd).1
  exact ⟨(evaluator_exact procs1x procs2x f).mp hf' e hD, evaluator_correct procs1x procs2x f hf' e hD⟩

end Sketchpad
