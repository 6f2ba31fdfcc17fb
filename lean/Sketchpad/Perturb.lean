/-
  Sketchpad.Perturb — Theorem 4: bounded numerical perturbation leaves every step, and so
  every run, unchanged, when every view's margin exceeds twice the bound.

  A model is a logit function `L : View → Step → Int` over a finite list of candidate steps
  (the step tokens); its stepper picks the first candidate of highest logit (`decode`).  The
  margin at a view is the top logit minus every other candidate's.  Integers stand for the
  logits (any fixed-point reading of the device's numbers); no real numbers are needed.
-/
module

public import Sketchpad.Reduction

@[expose] public noncomputable section

namespace Sketchpad

abbrev Logits := View → Step → Int

/-- Scan the candidates, keeping the first one of highest score. -/
def argmaxAux (score : Step → Int) : List Step → Step → Step
  | [], best => best
  | s :: rest, best => argmaxAux score rest (if score best < score s then s else best)

/-- The step a score function picks among the candidates. -/
def pick (cands : List Step) (score : Step → Int) : Step :=
  match cands with
  | [] => dfltStep
  | s :: rest => argmaxAux score rest s

/-- The stepper of a logit model. -/
def decode (cands : List Step) (L : Logits) : Stepper := fun v => pick cands (L v)

theorem argmaxAux_mem (score : Step → Int) :
    ∀ (rest : List Step) (best : Step), argmaxAux score rest best ∈ best :: rest := by
  intro rest
  induction rest with
  | nil => intro best; exact List.Mem.head _
  | cons t rest ih =>
    intro best
    first | simp only [argmaxAux] | rw [argmaxAux]
    by_cases hlt : score best < score t
    · rw [if_pos hlt]
      have h := ih t
      rcases List.mem_cons.mp h with e | e
      · rw [e]; exact List.Mem.tail _ (List.Mem.head _)
      · exact List.Mem.tail _ (List.Mem.tail _ e)
    · rw [if_neg hlt]
      have h := ih best
      rcases List.mem_cons.mp h with e | e
      · rw [e]; exact List.Mem.head _
      · exact List.Mem.tail _ (List.Mem.tail _ e)

theorem pick_mem (cands : List Step) (score : Step → Int) (h : cands ≠ []) :
    pick cands score ∈ cands := by
  cases cands with
  | nil => exact absurd rfl h
  | cons s rest => exact argmaxAux_mem score rest s

/-- A candidate that beats every other candidate strictly is the one picked. -/
theorem argmaxAux_eq (score : Step → Int) (s : Step) :
    ∀ (rest : List Step) (best : Step),
      (∀ t ∈ rest, t ≠ s → score t < score s) → (best ≠ s → score best < score s) →
      (best = s ∨ s ∈ rest) → argmaxAux score rest best = s := by
  intro rest
  induction rest with
  | nil =>
    intro best _ _ h3
    rcases h3 with e | e
    · exact e
    · cases e
  | cons t rest ih =>
    intro best h1 h2 h3
    first | simp only [argmaxAux] | rw [argmaxAux]
    by_cases hlt : score best < score t
    · rw [if_pos hlt]
      apply ih t
      · intro u hu hne
        exact h1 u (List.Mem.tail _ hu) hne
      · intro hne
        exact h1 t (List.Mem.head _) hne
      · by_cases hts : t = s
        · exact Or.inl hts
        · right
          rcases h3 with hb | hmem
          · exfalso
            have h4 := h1 t (List.Mem.head _) hts
            rw [hb] at hlt
            omega
          · rcases List.mem_cons.mp hmem with e | e
            · exact absurd e.symm hts
            · exact e
    · rw [if_neg hlt]
      apply ih best
      · intro u hu hne
        exact h1 u (List.Mem.tail _ hu) hne
      · exact h2
      · rcases h3 with hb | hmem
        · exact Or.inl hb
        · rcases List.mem_cons.mp hmem with e | e
          · by_cases hbs : best = s
            · exact Or.inl hbs
            · exfalso
              have h4 := h2 hbs
              rw [e] at h4
              exact hlt h4
          · exact Or.inr e

theorem pick_eq (cands : List Step) (score : Step → Int) (s : Step) (hs : s ∈ cands)
    (hmax : ∀ t ∈ cands, t ≠ s → score t < score s) : pick cands score = s := by
  cases cands with
  | nil => cases hs
  | cons c rest =>
    show argmaxAux score rest c = s
    apply argmaxAux_eq score s rest c
    · intro t ht hne
      exact hmax t (List.Mem.tail _ ht) hne
    · intro hne
      exact hmax c (List.Mem.head _) hne
    · rcases List.mem_cons.mp hs with e | e
      · exact Or.inl e.symm
      · exact Or.inr e

/-- **Theorem 4 (perturbation).** Let `L` be a logit model over a non-empty candidate list,
and `S` a set of views (V, or one op's part of it).  If at every view of `S` the picked step
beats every other candidate by more than `2ε`, then every logit model `L'` within `ε` of `L`
at every candidate of every view of `S` picks the same step at every view of `S`. -/
theorem perturbation (cands : List Step) (hne : cands ≠ []) (L L' : Logits) (ε : Int)
    (S : List View)
    (hmargin : ∀ v ∈ S, ∀ t ∈ cands, t ≠ decode cands L v →
      L v t + 2 * ε < L v (decode cands L v))
    (hpert : ∀ v ∈ S, ∀ t ∈ cands, L' v t ≤ L v t + ε ∧ L v t ≤ L' v t + ε) :
    ∀ v ∈ S, decode cands L' v = decode cands L v := by
  intro v hv
  have hmem : decode cands L v ∈ cands := pick_mem cands (L v) hne
  apply pick_eq cands (L' v) (decode cands L v) hmem
  intro t ht hts
  have h1 := hmargin v hv t ht hts
  have h2 := hpert v hv t ht
  have h3 := hpert v hv _ hmem
  omega

/-- **Theorem 4, for runs.** If a logit model's stepper is exact on the ADD views of V with
every margin above `2ε`, every model within `ε` of it adds digit rows of every length exactly
as the reference does (and likewise for any other procedure covered by Theorem 1). -/
theorem perturbation_add (cands : List Step) (hne : cands ≠ []) (L L' : Logits) (ε : Int)
    (hexact : ∀ v ∈ V_ADD, decode cands L v = refStep v)
    (hmargin : ∀ v ∈ V_ADD, ∀ t ∈ cands, t ≠ decode cands L v →
      L v t + 2 * ε < L v (decode cands L v))
    (hpert : ∀ v ∈ V_ADD, ∀ t ∈ cands, L' v t ≤ L v t + ε ∧ L v t ≤ L' v t + ε) :
    ∀ xs ys, Digits xs → Digits ys →
      rowsRun (decode cands L') .ADD xs ys = rowsRun refStep .ADD xs ys := by
  apply (reduction_add (decode cands L')).mp
  intro v hv
  rw [perturbation cands hne L L' ε V_ADD hmargin hpert v hv]
  exact hexact v hv

theorem perturbation_mul_row (cands : List Step) (hne : cands ≠ []) (L L' : Logits) (ε : Int)
    (hexact : ∀ v ∈ V_MUL, decode cands L v = refStep v)
    (hmargin : ∀ v ∈ V_MUL, ∀ t ∈ cands, t ≠ decode cands L v →
      L v t + 2 * ε < L v (decode cands L v))
    (hpert : ∀ v ∈ V_MUL, ∀ t ∈ cands, L' v t ≤ L v t + ε ∧ L v t ≤ L' v t + ε) :
    ∀ xs d, Digits xs → d.isDigit = true →
      mulRowRun (decode cands L') xs d = mulRowRun refStep xs d := by
  apply (reduction_mul_row (decode cands L')).mp
  intro v hv
  rw [perturbation cands hne L L' ε V_MUL hmargin hpert v hv]
  exact hexact v hv

end Sketchpad
