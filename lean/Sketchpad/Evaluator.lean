/-
  Sketchpad.Evaluator — the expression evaluator (`solve.ev` of `sketchpad/solve.py`) as a
  program of the driver: leaves are the problem's own signed numbers; an operation node runs
  its operands' programs first, left to right, then its procedure on their results.  The
  procedures are parameters: any family of exact procedures (`ExactProc1`, `ExactProc2`,
  Sketchpad/Driver.lean) — those of this project (signed addition, subtraction, multiplication,
  negation, below) and any other that comes with its closure, witnesses and correctness
  (division, square root, gcd).

  Composition theorem: the evaluator is exact on every expression of every size whose leaves are
  signed digit rows of any lengths iff the stepper is exact on the union of its procedures'
  views, and then it computes the integer value of the expression.
-/
module

public import Sketchpad.Signed

@[expose] public noncomputable section

set_option autoImplicit false

namespace Sketchpad

open Prog

/-- An expression: signed-number leaves, unary operations indexed by `U`, binary ones by `B`. -/
inductive Expr (U B : Type) where
  | lit : SNum → Expr U B
  | un : U → Expr U B → Expr U B
  | bin : B → Expr U B → Expr U B → Expr U B

variable {U B : Type}

/-- The evaluator: `solve.ev` (operands first, left to right, then the procedure). -/
def evalP (P1 : U → ExactProc1) (P2 : B → ExactProc2) : Expr U B → Prog SNum
  | .lit n => done n
  | .un u e => (evalP P1 P2 e).bind (P1 u).prog
  | .bin o e1 e2 => (evalP P1 P2 e1).bind fun x => (evalP P1 P2 e2).bind ((P2 o).prog x)

/-- The integer an expression denotes. -/
def Expr.sem (P1 : U → ExactProc1) (P2 : B → ExactProc2) : Expr U B → Int
  | .lit n => n.val
  | .un u e => (P1 u).sem (Expr.sem P1 P2 e)
  | .bin o e1 e2 => (P2 o).sem (Expr.sem P1 P2 e1) (Expr.sem P1 P2 e2)

/-- An expression the reference can evaluate: well-formed leaves, and every node's operands
(as the reference computes them) in its procedure's domain (e.g. a non-zero divisor). -/
def Defined (P1 : U → ExactProc1) (P2 : B → ExactProc2) : Expr U B → Prop
  | .lit n => n.WF
  | .un u e => Defined P1 P2 e ∧ (P1 u).dom (out refStep (evalP P1 P2 e))
  | .bin o e1 e2 => Defined P1 P2 e1 ∧ Defined P1 P2 e2 ∧
      (P2 o).dom (out refStep (evalP P1 P2 e1)) (out refStep (evalP P1 P2 e2))

/-- The views of all the procedures. -/
def VE (P1 : U → ExactProc1) (P2 : B → ExactProc2) (v : View) : Prop :=
  (∃ u, (P1 u).views v) ∨ (∃ o, (P2 o).views v)

theorem evalP_un (f : Stepper) (P1 : U → ExactProc1) (P2 : B → ExactProc2) (u : U) (e : Expr U B) :
    out f (evalP P1 P2 (.un u e)) = out f ((P1 u).prog (out f (evalP P1 P2 e))) ∧
    log f (evalP P1 P2 (.un u e)) = log f (evalP P1 P2 e) ++ log f ((P1 u).prog (out f (evalP P1 P2 e))) :=
  ⟨out_bind f _ _, log_bind f _ _⟩

theorem evalP_bin (f : Stepper) (P1 : U → ExactProc1) (P2 : B → ExactProc2) (o : B) (e1 e2 : Expr U B) :
    out f (evalP P1 P2 (.bin o e1 e2)) =
      out f ((P2 o).prog (out f (evalP P1 P2 e1)) (out f (evalP P1 P2 e2))) ∧
    log f (evalP P1 P2 (.bin o e1 e2)) = log f (evalP P1 P2 e1) ++ (log f (evalP P1 P2 e2) ++
      log f ((P2 o).prog (out f (evalP P1 P2 e1)) (out f (evalP P1 P2 e2)))) := by
  refine ⟨?_, ?_⟩
  · show out f ((evalP P1 P2 e1).bind fun x => (evalP P1 P2 e2).bind ((P2 o).prog x)) = _
    rw [out_bind]
    show out f ((evalP P1 P2 e2).bind ((P2 o).prog (out f (evalP P1 P2 e1)))) = _
    rw [out_bind]
  · show log f ((evalP P1 P2 e1).bind fun x => (evalP P1 P2 e2).bind ((P2 o).prog x)) = _
    rw [log_bind]
    show log f (evalP P1 P2 e1) ++ log f ((evalP P1 P2 e2).bind ((P2 o).prog (out f (evalP P1 P2 e1)))) = _
    rw [log_bind]

/-- The reference evaluation of a defined expression: a well-formed signed number denoting the
expression's value, and only views of the procedures. -/
theorem eval_ref (P1 : U → ExactProc1) (P2 : B → ExactProc2) :
    ∀ e : Expr U B, Defined P1 P2 e →
      (out refStep (evalP P1 P2 e)).WF ∧ (out refStep (evalP P1 P2 e)).val = Expr.sem P1 P2 e ∧
      ∀ x ∈ log refStep (evalP P1 P2 e), VE P1 P2 x.1 := by
  intro e
  induction e with
  | lit n => intro h; exact ⟨h, rfl, fun x hx => by cases hx⟩
  | un u e ih =>
    intro h
    obtain ⟨hd, hdom⟩ := h
    obtain ⟨w, v, c⟩ := ih hd
    obtain ⟨o1, l1⟩ := evalP_un refStep P1 P2 u e
    rw [o1, l1]
    refine ⟨(P1 u).wf _ w hdom, ?_, ?_⟩
    · rw [(P1 u).correct _ w hdom, v]; rfl
    · intro x hx
      rcases List.mem_append.mp hx with e' | e'
      · exact c x e'
      · exact Or.inl ⟨u, (P1 u).closed _ w hdom x e'⟩
  | bin o e1 e2 ih1 ih2 =>
    intro h
    obtain ⟨hd1, hd2, hdom⟩ := h
    obtain ⟨w1, v1, c1⟩ := ih1 hd1
    obtain ⟨w2, v2, c2⟩ := ih2 hd2
    obtain ⟨o1, l1⟩ := evalP_bin refStep P1 P2 o e1 e2
    rw [o1, l1]
    refine ⟨(P2 o).wf _ _ w1 w2 hdom, ?_, ?_⟩
    · rw [(P2 o).correct _ _ w1 w2 hdom, v1, v2]; rfl
    · intro x hx
      rcases List.mem_append.mp hx with e' | e'
      · exact c1 x e'
      · rcases List.mem_append.mp e' with e'' | e''
        · exact c2 x e''
        · exact Or.inr ⟨o, (P2 o).closed _ _ w1 w2 hdom x e''⟩

/-- **Composition (the expression evaluator).** For any families of exact procedures, a stepper
agrees with the reference on the union of the procedures' views iff it evaluates every defined
expression — of any size, with leaves of any lengths — exactly as the reference (same steps,
hence the same sheets and result). -/
theorem evaluator_exact (P1 : U → ExactProc1) (P2 : B → ExactProc2) (f : Stepper) :
    (∀ v, VE P1 P2 v → f v = refStep v) ↔
      ∀ e : Expr U B, Defined P1 P2 e → steps f (evalP P1 P2 e) = steps refStep (evalP P1 P2 e) := by
  constructor
  · intro hf e he
    exact run_congr_steps f refStep _ (fun x hx => hf x.1 ((eval_ref P1 P2 e he).2.2 x hx))
  · intro hrun v hv
    rcases hv with ⟨u, hu⟩ | ⟨o, ho⟩
    · obtain ⟨a, ha, hdom, hmem⟩ := (P1 u).wit v hu
      have hD : Defined P1 P2 (.un u (.lit a)) := ⟨ha, hdom⟩
      have hl : log refStep (evalP P1 P2 (.un u (.lit a))) = log refStep ((P1 u).prog a) :=
        (evalP_un refStep P1 P2 u (.lit a)).2
      obtain ⟨x, hx, rfl⟩ := List.mem_map.mp hmem
      exact run_agree f refStep _ (hrun _ hD) x (by rw [hl]; exact hx)
    · obtain ⟨a, b, ha, hb, hdom, hmem⟩ := (P2 o).wit v ho
      have hD : Defined P1 P2 (.bin o (.lit a) (.lit b)) := ⟨ha, hb, hdom⟩
      have hl : log refStep (evalP P1 P2 (.bin o (.lit a) (.lit b))) = log refStep ((P2 o).prog a b) :=
        (evalP_bin refStep P1 P2 o (.lit a) (.lit b)).2
      obtain ⟨x, hx, rfl⟩ := List.mem_map.mp hmem
      exact run_agree f refStep _ (hrun _ hD) x (by rw [hl]; exact hx)

/-- **Composition, end to end.** A stepper exact on the union of the procedures' views computes
the value of every defined expression, at every size and length. -/
theorem evaluator_correct (P1 : U → ExactProc1) (P2 : B → ExactProc2) (f : Stepper)
    (hf : ∀ v, VE P1 P2 v → f v = refStep v) (e : Expr U B) (he : Defined P1 P2 e) :
    (out f (evalP P1 P2 e)).val = Expr.sem P1 P2 e := by
  rw [(run_exact f (VE P1 P2) (evalP P1 P2 e) (eval_ref P1 P2 e he).2.2 hf).1]
  exact (eval_ref P1 P2 e he).2.1

/-! ### This project's procedures as exact procedures -/

theorem addOps_SGNADD : Op.SGNADD ∈ addOps := by decide
theorem addOps_SGNSUB : Op.SGNSUB ∈ addOps := by decide

/-- Signed addition (`+`). -/
def addProc : ExactProc2 where
  prog := sgnAddP .SGNADD
  dom := fun _ _ => True
  views := VSADD .SGNADD
  sem := fun x y => x + y
  closed := fun a b ha hb _ => (sgnAdd_ref .SGNADD addOps_SGNADD a b ha hb).2.2.2
  wit := fun v hv => by
    obtain ⟨i, ⟨h1, h2⟩, h3⟩ := sgnAdd_wit .SGNADD addOps_SGNADD W_SGNADD W_SGNADD_fst W_SGNADD_ok v hv
    exact ⟨i.1, i.2, h1, h2, trivial, h3⟩
  wf := fun a b ha hb _ => (signed_add_correct a b ha hb).1
  correct := fun a b ha hb _ => (signed_add_correct a b ha hb).2.1

/-- Signed subtraction (`-`). -/
def subProc : ExactProc2 where
  prog := sgnAddP .SGNSUB
  dom := fun _ _ => True
  views := VSADD .SGNSUB
  sem := fun x y => x - y
  closed := fun a b ha hb _ => (sgnAdd_ref .SGNSUB addOps_SGNSUB a b ha hb).2.2.2
  wit := fun v hv => by
    obtain ⟨i, ⟨h1, h2⟩, h3⟩ := sgnAdd_wit .SGNSUB addOps_SGNSUB W_SGNSUB W_SGNSUB_fst W_SGNSUB_ok v hv
    exact ⟨i.1, i.2, h1, h2, trivial, h3⟩
  wf := fun a b ha hb _ => (signed_sub_correct a b ha hb).1
  correct := fun a b ha hb _ => (signed_sub_correct a b ha hb).2.1

/-- Signed multiplication (`*`). -/
def mulProc : ExactProc2 where
  prog := sgnMulP
  dom := fun _ _ => True
  views := VSMUL
  sem := fun x y => x * y
  closed := fun a b ha hb _ => sgnMul_closed a b ha hb
  wit := fun v hv => by
    obtain ⟨i, ⟨h1, h2⟩, h3⟩ := sgnMul_wit v hv
    exact ⟨i.1, i.2, h1, h2, trivial, h3⟩
  wf := fun a b ha hb _ => (signed_mul_correct a b ha hb).1
  correct := fun a b ha hb _ => (signed_mul_correct a b ha hb).2

/-- Negation (unary `-`). -/
def negProc : ExactProc1 where
  prog := negP
  dom := fun _ => True
  views := fun v => v ∈ V_NEG
  sem := fun x => -x
  closed := fun a ha _ => neg_closed a ha
  wit := fun v hv => by
    rw [← W_NEG_fst] at hv
    obtain ⟨w, hw, rfl⟩ := List.mem_map.mp hv
    exact ⟨w.2, SNum.wf_of_wfb _ (W_NEG_ok w hw).1, trivial, (W_NEG_ok w hw).2⟩
  wf := fun a ha _ => (neg_correct a ha).1
  correct := fun a ha _ => (neg_correct a ha).2

/-- The unary operations of this project's evaluator. -/
inductive Op1 where
  | neg

/-- The binary operations of this project's evaluator (division, remainder and gcd join them
as further constructors once their exact procedures exist). -/
inductive Op2 where
  | add | sub | mul

def procs1 : Op1 → ExactProc1
  | .neg => negProc

def procs2 : Op2 → ExactProc2
  | .add => addProc
  | .sub => subProc
  | .mul => mulProc

/-- The union of the views of `+`, `-`, `*` and negation: 1,236 views of V. -/
theorem VE_signed (v : View) :
    VE procs1 procs2 v ↔ v ∈ V_NEG ∨ VSADD .SGNADD v ∨ VSADD .SGNSUB v ∨ VSMUL v := by
  constructor
  · rintro (⟨u, hu⟩ | ⟨o, ho⟩)
    · cases u; exact Or.inl hu
    · cases o
      · exact Or.inr (Or.inl ho)
      · exact Or.inr (Or.inr (Or.inl ho))
      · exact Or.inr (Or.inr (Or.inr ho))
  · rintro (h | h | h | h)
    · exact Or.inl ⟨.neg, h⟩
    · exact Or.inr ⟨.add, h⟩
    · exact Or.inr ⟨.sub, h⟩
    · exact Or.inr ⟨.mul, h⟩

/-- **Composition, for `+`, `-`, `*` and negation.** A stepper evaluates every expression built
from signed digit rows of any lengths with `+`, `-`, `*` and unary `-` exactly as the reference
iff it agrees with the reference on the views of those procedures (`VE_signed`); it then
computes the expression's integer value. -/
theorem evaluator_signed_exact (f : Stepper) :
    ((∀ v, VE procs1 procs2 v → f v = refStep v) ↔
      ∀ e : Expr Op1 Op2, Defined procs1 procs2 e →
        steps f (evalP procs1 procs2 e) = steps refStep (evalP procs1 procs2 e)) ∧
    ((∀ v, VE procs1 procs2 v → f v = refStep v) →
      ∀ e : Expr Op1 Op2, Defined procs1 procs2 e →
        (out f (evalP procs1 procs2 e)).val = Expr.sem procs1 procs2 e) :=
  ⟨evaluator_exact procs1 procs2 f, fun hf e he => evaluator_correct procs1 procs2 f hf e he⟩

/-- Every leaf is a well-formed signed number. -/
def Leaves : Expr U B → Prop
  | .lit n => n.WF
  | .un _ e => Leaves e
  | .bin _ e1 e2 => Leaves e1 ∧ Leaves e2

/-- For these procedures, an expression is defined exactly when its leaves are well formed. -/
theorem defined_signed : ∀ e : Expr Op1 Op2, Defined procs1 procs2 e ↔ Leaves e
  | .lit n => Iff.rfl
  | .un u e => by
    cases u
    exact ⟨fun h => (defined_signed e).mp h.1, fun h => ⟨(defined_signed e).mpr h, trivial⟩⟩
  | .bin o e1 e2 => by
    cases o <;>
    exact ⟨fun h => ⟨(defined_signed e1).mp h.1, (defined_signed e2).mp h.2.1⟩,
      fun h => ⟨(defined_signed e1).mpr h.1, (defined_signed e2).mpr h.2, trivial⟩⟩

/-- Every view of `+`, `-`, `*` and negation is a view of V. -/
theorem VE_signed_V (v : View) (h : VE procs1 procs2 v) : v ∈ V := by
  have hadd : v ∈ V_ADD → v ∈ V := fun h => by unfold V; simp only [List.mem_append]; simp [h]
  have hsub : v ∈ V_SUB → v ∈ V := fun h => by unfold V; simp only [List.mem_append]; simp [h]
  have hcmp : v ∈ V_CMP → v ∈ V := fun h => by
    unfold V_CMP at h; unfold V; simp only [List.mem_append] at h ⊢
    rcases h with (h | h) | h <;> simp [h]
  have hmul : v ∈ V_MUL → v ∈ V := fun h => by unfold V; simp only [List.mem_append]; simp [h]
  have hsg : ∀ op ∈ addOps, v ∈ sgnViews op → v ∈ V := by
    intro op hop h
    unfold V; simp only [List.mem_append]
    rcases List.mem_cons.mp hop with e | e
    · subst e; simp [sgnViews] at h; simp [h]
    · rcases List.mem_cons.mp e with e | e
      · subst e; simp [sgnViews] at h; simp [h]
      · cases e
  have hsadd : ∀ op ∈ addOps, VSADD op v → v ∈ V := by
    intro op hop h
    rcases h with h | h | h | h
    · exact hsg op hop h
    · exact hadd h
    · exact hcmp h
    · exact hsub (List.mem_filter.mp h).1
  rcases (VE_signed v).mp h with h | h | h | h
  · unfold V; simp only [List.mem_append]; simp [h]
  · exact hsadd .SGNADD (by decide) h
  · exact hsadd .SGNSUB (by decide) h
  · rcases h with h | h | h
    · unfold V; simp only [List.mem_append]; simp [h]
    · exact hmul h
    · exact hadd (List.mem_filter.mp h).1

/-- **The paper's form, for `+`, `-`, `*` and negation.** A stepper exact on the finite view set
V evaluates every expression built from signed digit rows of any lengths with these operations
exactly as the reference, and computes its value. -/
theorem evaluator_signed_of_V (f : Stepper) (hf : ∀ v ∈ V, f v = refStep v)
    (e : Expr Op1 Op2) (he : Leaves e) :
    steps f (evalP procs1 procs2 e) = steps refStep (evalP procs1 procs2 e) ∧
    (out f (evalP procs1 procs2 e)).val = Expr.sem procs1 procs2 e := by
  have hf' : ∀ v, VE procs1 procs2 v → f v = refStep v := fun v h => hf v (VE_signed_V v h)
  have hd := (defined_signed e).mpr he
  exact ⟨(evaluator_exact procs1 procs2 f).mp hf' e hd, evaluator_correct procs1 procs2 f hf' e hd⟩

end Sketchpad
