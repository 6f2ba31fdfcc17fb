/-
  Sketchpad.ShippedParMul — the evaluator induction of the parallel solve with products (issue 21,
  piece (iv) of the default mode's product proof).

  `solve_par_seq` (ShippedPar.lean) relates the parallel and the sequential solve by `Alike`
  (same result *and* same steps), which a product cannot join: its sum tree writes other rows.
  Here the relation is the result alone (`dout`), under the parallel run's `FamOK` (no
  `StepperFault`), which splits over sequencing (`PB.famOK_bind`).  `solveB_dout`: every node
  other than `*` keeps it (by `par_eq` and the `Alike` lemmas of ShippedPar.lean); a `*` node
  keeps it wherever the hypothesis `hmul` says that the parallel and the sequential product of
  the operands the sequential solve computed return the same signed number.
-/
module

public import Sketchpad.ShippedMul

@[expose] public noncomputable section

set_option autoImplicit false

namespace Sketchpad

open Prog Drive

variable {α β : Type}

namespace PB

/-- `FamOK` splits over sequencing: the first part's, and the rest's at the first part's result. -/
theorem famOK_bind (f : Stepper) (p : PB α) (q : α → PB β) (h : (p.bind q).FamOK f) :
    p.FamOK f ∧ (q (dout f p.drive)).FamOK f := by
  induction p with
  | done a => exact ⟨trivial, h⟩
  | ask v k ih => exact ih (f v) h
  | sel scs k ih =>
    obtain ⟨hs, hk⟩ := h
    obtain ⟨h1, h2⟩ := ih (scs.map (followScan f)) hk
    exact ⟨⟨hs, h1⟩, h2⟩
  | spec P b k ih =>
    obtain ⟨h1, h2⟩ := ih (out f b) h
    refine ⟨h1, ?_⟩
    have e : dout f (PB.spec P b k).drive = dout f (k (out f b)).drive := by
      show dout f (specD (probeMask P) f b fun c => (k c).drive) = _
      exact specD_out f _ _ b
    rw [e]
    exact h2
  | tog n ps k ih =>
    obtain ⟨h1, h2⟩ := ih (out f (roundsP n ps)) h
    refine ⟨h1, ?_⟩
    have e : dout f (PB.tog n ps k).drive = dout f (k (out f (roundsP n ps))).drive := by
      show dout f (togD (fun r => (k r).drive) n ps) = _
      exact (PB.togD_flat f _ n ps).2
    rw [e]
    exact h2

end PB

/-- Results agree through sequencing. -/
theorem dout_pb_bind (f : Stepper) (A B : PB α) (K K' : α → PB β)
    (hA : A.FamOK f → dout f A.drive = dout f B.drive)
    (hK : ∀ a, dout f B.drive = a → (K a).FamOK f → dout f (K a).drive = dout f (K' a).drive)
    (h : (A.bind K).FamOK f) : dout f (A.bind K).drive = dout f (B.bind K').drive := by
  obtain ⟨h1, h2⟩ := PB.famOK_bind f A K h
  have e := hA h1
  rw [PB.dout_bind, PB.dout_bind, ← e]
  exact hK _ e.symm h2

/-- A parallel procedure whose sequential program is `Alike` a sequential-mode procedure's
returns that procedure's result (when Python raises no `StepperFault`). -/
theorem par_dout_of_alike (f : Stepper) (A B : PB α) (hB : B.NoPar) (hAB : Alike f A.seq B.seq)
    (h : A.FamOK f) : dout f A.drive = dout f B.drive := by
  rw [(par_eq f A h).1, (PB.seq_flat f B hB).2]
  exact hAB.1

theorem noPar_isqrtB (x : SNum) : (isqrtB false x).NoPar := by
  show (if x.1 = .minus ∧ x.2 ≠ [.d0] then PB.done (Except.error PyErr.negSqrt)
    else (PB.lift (isqrtP x)).bind fun r => PB.done (Except.ok r)).NoPar
  by_cases h : x.1 = .minus ∧ x.2 ≠ [.d0]
  · rw [if_pos h]; trivial
  · rw [if_neg h]; exact noPar_ok _

/-- **The parallel solve returns the sequential solve's result**, for every expression `e` of a
class `P` closed under sub-expressions and every stepper under which Python's parallel run
raises no `StepperFault`, provided every `*` node of `P` does: the parallel and the sequential
product of the operands the sequential solve computed return the same (`hmul`). -/
theorem solveB_dout (f : Stepper) (L : Limits) (P : Expr Op1x Op2x → Prop)
    (hs1 : ∀ u e, P (.un u e) → P e) (hs2 : ∀ o e1 e2, P (.bin o e1 e2) → P e1 ∧ P e2)
    (hmul : ∀ e1 e2 x y, P (.bin .mul e1 e2) → dout f (solveB false L e1).drive = .ok x →
      dout f (solveB false L e2).drive = .ok y → (binB true .mul x y).FamOK f →
      dout f (binB true .mul x y).drive = dout f (binB false .mul x y).drive) :
    ∀ e, P e → (solveB true L e).FamOK f → dout f (solveB true L e).drive = dout f (solveB false L e).drive
  | .lit _, _, _ => rfl
  | .un .neg e, hp, h =>
    dout_pb_bind f _ _ _ _ (solveB_dout f L P hs1 hs2 hmul e (hs1 _ _ hp)) (fun _ _ _ => rfl) h
  | .un .sqrt e, hp, h =>
    dout_pb_bind f _ _ _ _ (solveB_dout f L P hs1 hs2 hmul e (hs1 _ _ hp)) (fun r _ hF => by
      cases r with
      | error x => rfl
      | ok x =>
        revert hF
        show (match checkNums L (some .sqrt) [x] with
            | some err => PB.done (Except.error err)
            | none => isqrtB true x).FamOK f →
          dout f (match checkNums L (some .sqrt) [x] with
            | some err => PB.done (Except.error err)
            | none => isqrtB true x).drive =
          dout f (match checkNums L (some .sqrt) [x] with
            | some err => PB.done (Except.error err)
            | none => isqrtB false x).drive
        cases checkNums L (some .sqrt) [x] with
        | some err => intro _; rfl
        | none => exact par_dout_of_alike f _ _ (noPar_isqrtB x) (isqrtB_par f x)) h
  | .bin o e1 e2, hp, h =>
    dout_pb_bind f _ _ _ _ (solveB_dout f L P hs1 hs2 hmul e1 (hs2 _ _ _ hp).1) (fun r1 hr1 hF1 => by
      cases r1 with
      | error x => rfl
      | ok x =>
        refine dout_pb_bind f _ _ _ _ (solveB_dout f L P hs1 hs2 hmul e2 (hs2 _ _ _ hp).2)
          (fun r2 hr2 hF2 => ?_) hF1
        cases r2 with
        | error y => rfl
        | ok y =>
          revert hF2
          show (match checkNums L (quadOf o) [x, y] with
              | some err => PB.done (Except.error err)
              | none => binB true o x y).FamOK f →
            dout f (match checkNums L (quadOf o) [x, y] with
              | some err => PB.done (Except.error err)
              | none => binB true o x y).drive =
            dout f (match checkNums L (quadOf o) [x, y] with
              | some err => PB.done (Except.error err)
              | none => binB false o x y).drive
          cases checkNums L (quadOf o) [x, y] with
          | some err => intro _; rfl
          | none =>
            intro hF
            by_cases ho : o = .mul
            · subst ho
              exact hmul e1 e2 x y hp hr1 hr2 hF
            · exact par_dout_of_alike f _ _ (noPar_binB o x y) (binB_par f o ho x y) hF) h

/-- The same for `solve` (the evaluator, then the result's size limit). -/
theorem solveTop_dout (f : Stepper) (L : Limits) (P : Expr Op1x Op2x → Prop)
    (hs1 : ∀ u e, P (.un u e) → P e) (hs2 : ∀ o e1 e2, P (.bin o e1 e2) → P e1 ∧ P e2)
    (hmul : ∀ e1 e2 x y, P (.bin .mul e1 e2) → dout f (solveB false L e1).drive = .ok x →
      dout f (solveB false L e2).drive = .ok y → (binB true .mul x y).FamOK f →
      dout f (binB true .mul x y).drive = dout f (binB false .mul x y).drive)
    (e : Expr Op1x Op2x) (hp : P e) (h : (solveTop true L e).FamOK f) :
    dout f (solveTop true L e).drive = dout f (solveTop false L e).drive :=
  dout_pb_bind f _ _ _ _ (solveB_dout f L P hs1 hs2 hmul e hp) (fun _ _ _ => rfl) h

end Sketchpad
