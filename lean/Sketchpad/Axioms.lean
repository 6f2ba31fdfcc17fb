/-
  Sketchpad.Axioms — `#print axioms` for every main theorem (see lean/README.md).
  Expected: nothing beyond `propext`, `Classical.choice`, `Quot.sound` (the standard axioms
  that core tactics such as `simp`, `omega` and `by_cases` may use).  In particular no
  `Lean.ofReduceBool`: every finite check is evaluated by the kernel itself.
-/
import Sketchpad.Reduction
import Sketchpad.Correct
import Sketchpad.Compose
import Sketchpad.History
import Sketchpad.Perturb

open Sketchpad

-- Theorem 1: reduction
#print axioms reduction_add
#print axioms reduction_sub
#print axioms reduction_mul_row
-- Theorem 2: correctness of the reference
#print axioms add_correct
#print axioms sub_correct
#print axioms mul_row_correct
#print axioms mul_correct
-- Theorem 3: no finite test for history-reading steppers
#print axioms no_finite_test
-- Theorem 4: perturbation
#print axioms perturbation
#print axioms perturbation_add
#print axioms perturbation_mul_row
-- Theorem 5: composition
#print axioms mul_exact
#print axioms mul_exact_correct
#print axioms compose_exact
-- Carry-select addition (issue 7)
#print axioms select_add_eq
#print axioms select_add_exact
