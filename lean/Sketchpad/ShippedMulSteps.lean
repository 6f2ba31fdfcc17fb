/-
  Sketchpad.ShippedMulSteps — the steps of the parallel product as shipped (issue 21): for a
  stepper exact on V, every (view, step) pair a parallel signed product writes (its `SGN*` view,
  its carry-select partial rows, every pair addition of its sum tree) is the reference's step at a
  view of V.  The rows differ from the sequential product's (the tree adds other pairs), so this is
  the product's counterpart of `solve_par_of_V`'s step equality.
-/
module

public import Sketchpad.ShippedMul

@[expose] public noncomputable section

set_option autoImplicit false

namespace Sketchpad

open Prog Drive

variable {α : Type}

/-- A reference step at a view of V. -/
def RefV (p : View × Step) : Prop := p.1 ∈ V ∧ p.2 = refStep p.1

theorem pairScan_ref (f : Stepper) (hadd : ∀ v ∈ V_ADD, f v = refStep v) (p q : List Cell × Nat)
    (hp : Digits p.1) (hq : Digits q.1) :
    followScan f (pairScan (p, q)) = addTrace refStep (p.1.drop (q.2 - p.2)) q.1 := by
  obtain ⟨e1, e2⟩ := sel_add_exact f hadd (p.1.drop (q.2 - p.2)) q.1 (digits_drop _ hp) hq
  rw [followScan_eq]
  show selRowsTrace f .ADD (p.1.drop (q.2 - p.2)) q.1 = _
  rw [e1, e2]

theorem add_refV (xs ys : List Cell) (hx : Digits xs) (hy : Digits ys) :
    ∀ p ∈ addTrace refStep xs ys, RefV p := fun p hp =>
  ⟨mem_V_of p.1 (Or.inl (add_sound xs ys hx hy p hp)), trace_snd refStep _ .ADD xs ys .blank p hp⟩

theorem pairsOf_dig : ∀ l : List (List Cell × Nat), AllDig l →
    ∀ pr ∈ pairsOfItems l, Digits pr.1.1 ∧ Digits pr.2.1
  | [], _, pr, h => by
    have h' : pr ∈ ([] : List ((List Cell × Nat) × (List Cell × Nat))) := h
    cases h'
  | [_], _, pr, h => by
    have h' : pr ∈ ([] : List ((List Cell × Nat) × (List Cell × Nat))) := h
    cases h'
  | p :: q :: rest, hd, pr, h => by
    obtain ⟨hp, hq, hr⟩ := hd
    have h' : pr ∈ (p, q) :: pairsOfItems rest := h
    rcases List.mem_cons.mp h' with e | e
    · subst e
      exact ⟨hp, hq⟩
    · exact pairsOf_dig rest hr pr e

theorem levelB_dig (f : Stepper) (hadd : ∀ v ∈ V_ADD, f v = refStep v) :
    ∀ l : List (List Cell × Nat), AllDig l → AllDig (levelB f l)
  | [], h => h
  | [_], h => h
  | p :: q :: rest, h => by
    obtain ⟨hp, hq, hr⟩ := h
    rw [levelB_cons2]
    refine ⟨?_, levelB_dig f hadd rest hr⟩
    rw [pairScan_ref f hadd p q hp hq]
    exact digits_append (digits_take _ hp) (add_correct _ _ (digits_drop _ hp) hq).2.1

/-- Every step the shipped sum tree writes is the reference's at a view of V (any digit rows). -/
theorem sumTreeB_steps (f : Stepper) (hadd : ∀ v ∈ V_ADD, f v = refStep v) (K : List Cell → PB α)
    (hK : ∀ R, (K R).flog f = []) :
    ∀ (n : Nat) (l : List (List Cell × Nat)), AllDig l → ∀ p ∈ (sumTreeB K n l).flog f, RefV p
  | 0, l, _, p, hp => by
    have e : (sumTreeB K 0 l).flog f = (K (l.headD ([], 0)).1).flog f := rfl
    rw [e, hK] at hp
    cases hp
  | n + 1, [], _, p, hp => by
    have e : (sumTreeB K (n + 1) []).flog f = (K []).flog f := rfl
    rw [e, hK] at hp
    cases hp
  | n + 1, [a], _, p, hp => by
    have e : (sumTreeB K (n + 1) [a]).flog f = (K a.1).flog f := rfl
    rw [e, hK] at hp
    cases hp
  | n + 1, a :: b :: rest, hd, p, hp => by
    have e : (sumTreeB K (n + 1) (a :: b :: rest)).flog f =
        (((pairsOfItems (a :: b :: rest)).map pairScan).map (followScan f)).flatten ++
          (sumTreeB K n (levelB f (a :: b :: rest))).flog f := rfl
    rw [e] at hp
    rcases List.mem_append.mp hp with h | h
    · obtain ⟨t, ht, hpt⟩ := List.mem_flatten.mp h
      obtain ⟨sc, hsc, rfl⟩ := List.mem_map.mp ht
      obtain ⟨pr, hpr, rfl⟩ := List.mem_map.mp hsc
      obtain ⟨d1, d2⟩ := pairsOf_dig _ hd pr hpr
      obtain ⟨p1, p2⟩ := pr
      rw [pairScan_ref f hadd p1 p2 d1 d2] at hpt
      exact add_refV _ _ (digits_drop _ d1) d2 p hpt
    · exact sumTreeB_steps f hadd K hK n _ (levelB_dig f hadd _ hd) p h

theorem withCols_dig (xs : List Cell) (hx : Digits xs) (ys : List Cell) (hy : Digits ys) :
    AllDig (withCols 0 ((ys.map (mulRowTrace refStep xs)).map rowOf)) := by
  rw [List.map_map, withCols_eq]
  exact (partials_ok (rowOf ∘ mulRowTrace refStep xs) (rowVal xs) (fun d hd => by
    obtain ⟨v, dg, _⟩ := mul_row_correct xs d hx hd
    exact ⟨v, dg⟩) ys 0 hy).2.1

/-- Every step the shipped parallel product of two digit rows writes is the reference's at a view
of V (stepper exact on `V_MUL` and `V_ADD`; rows of any lengths). -/
theorem mulParB_steps (f : Stepper) (hmul : ∀ v ∈ V_MUL, f v = refStep v) (hadd : ∀ v ∈ V_ADD, f v = refStep v)
    (xs ys : List Cell) (hx : Digits xs) (hy : Digits ys) (K : List Cell → PB α) (hK : ∀ R, (K R).flog f = []) :
    ∀ p ∈ (mulParB xs ys K).flog f, RefV p := by
  intro p hp
  have e : (mulParB xs ys K).flog f = ((ys.map (mulRowScan xs)).map (followScan f)).flatten ++
      (sumTreeB K ys.length (withCols 0 (((ys.map (mulRowScan xs)).map (followScan f)).map rowOf))).flog f := rfl
  rw [e, mulRows_map f hmul xs hx ys hy] at hp
  rcases List.mem_append.mp hp with h | h
  · obtain ⟨t, ht, hpt⟩ := List.mem_flatten.mp h
    obtain ⟨d, hd, rfl⟩ := List.mem_map.mp ht
    have hdd : d.isDigit = true := (digits_iff ys).mp hy d hd
    have hv : p.1 ∈ V_MUL := mul_sound d hdd _ xs .blank hx (by decide) (mulOK_blank d) p hpt
    exact ⟨mem_V_of p.1 (by simp [hv]), trace_snd refStep _ .MUL xs _ .blank p hpt⟩
  · exact sumTreeB_steps f hadd K hK _ _ (withCols_dig xs hx ys hy) p h

/-- **The parallel product's steps**: for a stepper exact on V and well-formed signed operands (digit
rows of any lengths), every (view, step) pair the parallel signed product writes — its `SGN*`
view, its partial rows, the pair additions of its sum tree — is the reference's step at a view of
V. -/
theorem sgnMulB_steps (f : Stepper) (hf : ∀ v ∈ V, f v = refStep v) (x y : SNum) (hx : x.WF) (hy : y.WF) :
    ∀ p ∈ (sgnMulB true x y).flog f, RefV p := by
  have hmul : ∀ v ∈ V_MUL, f v = refStep v := fun v h => hf v (mem_V_of v (by simp [h]))
  have hadd : ∀ v ∈ V_ADD, f v = refStep v := fun v h => hf v (mem_V_of v (Or.inl h))
  have e : (sgnMulB true x y).flog f = (⟨.SGNMUL, x.1, y.1, .blank⟩, f ⟨.SGNMUL, x.1, y.1, .blank⟩) ::
      (mulParB x.2 y.2 (fun r => PB.done ((f ⟨.SGNMUL, x.1, y.1, .blank⟩).sym, canon r))).flog f := rfl
  intro p hp
  rw [e] at hp
  rcases List.mem_cons.mp hp with h | h
  · subst h
    have hv : (⟨.SGNMUL, x.1, y.1, .blank⟩ : View) ∈ V_SGNMUL :=
      (sgn_mul x.1 (SNum.sign_mem hx) y.1 (SNum.sign_mem hy)).2
    have hV : (⟨.SGNMUL, x.1, y.1, .blank⟩ : View) ∈ V := mem_V_of _ (by simp [hv])
    exact ⟨hV, hf _ hV⟩
  · exact mulParB_steps f hmul hadd x.2 y.2 hx.2 hy.2 _ (fun _ => rfl) p h

end Sketchpad
