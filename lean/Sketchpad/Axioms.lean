/-
  Sketchpad.Axioms — the axioms every main theorem depends on (see lean/README.md).

  Expected: nothing beyond `propext`, `Classical.choice`, `Quot.sound` (the standard axioms that
  core tactics such as `simp`, `omega` and `by_cases` may use).  In particular no `sorryAx` and
  no `Lean.ofReduceBool`: every finite check is evaluated by the kernel itself.

  `#print axioms` is refused inside a `module`, so this module runs `Lean.collectAxioms` from
  `#eval` and prints one line per theorem:

      AXIOMS Sketchpad.reduction_add: propext@Init.Core:axiom, Nat.le_of_ble_eq_true@Init.Prelude:thm, …

  Each entry is a constant the proof reaches that has no body here, with its module and kind.
  `import all` gives this module the bodies of every Sketchpad declaration, so the traversal
  goes through all of the project's proofs; what remains are axioms, and the theorems (and
  some definitions) of Lean's own library: the checker ships only the exported part of the
  library's `.olean` files, where those have no body, and lists them as `axiom`s.
  `lean/check.py` reads these lines and fails if a proof reaches an axiom of this project,
  `sorryAx`, `Lean.ofReduceBool`, `Lean.ofReduceNat` or `Lean.trustCompiler`; it accepts
  propext, Classical.choice, Quot.sound and the library's constants.

  The code below is written for the wasm checker, which cannot compile code that calls library
  functions whose compiled form it lacks (`List.reverse._redArg`, `Array.foldlMUnsafe.fold`,
  `logInfo`, `toString` on names): plain recursion and `IO.println` only.
-/
module

import Lean
import all Sketchpad.Basic
import all Sketchpad.Table
import all Sketchpad.Runtime
import all Sketchpad.Facts
import all Sketchpad.Reduction
import all Sketchpad.Correct
import all Sketchpad.Compose
import all Sketchpad.History
import all Sketchpad.Perturb
-- issue 11 (lean2a): the driver and the procedures it drives
import all Sketchpad.Driver
import all Sketchpad.TableProc
import all Sketchpad.Compare
import all Sketchpad.Signed
import all Sketchpad.Evaluator
-- issue 15 (lean2c): the parallel mode writes the sequential sheet
import all Sketchpad.Parallel
-- issue 11 (lean2b): division, gcd, the evaluator with them
import all Sketchpad.TableDiv
import all Sketchpad.Divide
import all Sketchpad.Gcd
import all Sketchpad.EvalDiv
import all Sketchpad.TableSqrt
import all Sketchpad.Sqrt
import all Sketchpad.EvalAll
-- issue 21: the shipped runtime (Batch.lean, Shipped.lean) and its golden traces
import all Sketchpad.Batch
import all Sketchpad.Shipped
import all Sketchpad.GoldenCheck
import all Sketchpad.GoldenSeq
import all Sketchpad.ShippedSeq
import all Sketchpad.ShippedPar
import all Sketchpad.ShippedMul
import all Sketchpad.ShippedParMul
import all Sketchpad.ShippedMulNode
import all Sketchpad.ShippedMulSteps

namespace Sketchpad.AxiomReport

open Lean Elab Command

def nameStr : Name → String
  | .anonymous => ""
  | .str .anonymous s => s
  | .str p s => nameStr p ++ "." ++ s
  | .num p _ => nameStr p ++ ".#"

def kindStr : Option ConstantInfo → String
  | some (.axiomInfo _) => "axiom"
  | some (.thmInfo _) => "thm"
  | some (.defnInfo _) => "def"
  | some (.opaqueInfo _) => "opaque"
  | some _ => "other"
  | none => "none"

def moduleOf (env : Environment) (n : Name) : String :=
  match env.getModuleIdxFor? n with
  | some i =>
    match env.header.moduleNames[i.toNat]? with
    | some m => nameStr m
    | none => "?"
  | none => nameStr env.header.mainModule

def leaves (env : Environment) : List Name → String
  | [] => ""
  | [n] => nameStr n ++ "@" ++ moduleOf env n ++ ":" ++ kindStr (env.find? n)
  | n :: ns => nameStr n ++ "@" ++ moduleOf env n ++ ":" ++ kindStr (env.find? n) ++ ", " ++
      leaves env ns

/-- A natural number in decimal (plain recursion: the checker lacks compiled `Nat.repr`). -/
def natStr : Nat → Nat → String
  | 0, _ => "?"
  | fuel + 1, n =>
    if n < 10 then String.singleton (Char.ofNat (48 + n)) else natStr fuel (n / 10) ++ natStr fuel (n % 10)

def natS (n : Nat) : String := natStr (n + 1) n

/-- A statement as text, deterministic and without the pretty printer (which the checker
cannot run): constants by name, bound variables by de Bruijn index (fuel: the depth). -/
def exprStr : Nat → Lean.Expr → String
  | 0, _ => "…"
  | _ + 1, .bvar i => "#" ++ natS i
  | _ + 1, .fvar _ => "?fvar"
  | _ + 1, .mvar _ => "?mvar"
  | _ + 1, .sort _ => "Sort"
  | _ + 1, .const n _ => nameStr n
  | k + 1, .app f a => "(" ++ exprStr k f ++ " " ++ exprStr k a ++ ")"
  | k + 1, .lam n t b _ => "(fun " ++ nameStr n ++ " : " ++ exprStr k t ++ " => " ++ exprStr k b ++ ")"
  | k + 1, .forallE n t b _ => "(∀ " ++ nameStr n ++ " : " ++ exprStr k t ++ ", " ++ exprStr k b ++ ")"
  | k + 1, .letE n t v b _ =>
    "(let " ++ nameStr n ++ " : " ++ exprStr k t ++ " := " ++ exprStr k v ++ "; " ++ exprStr k b ++ ")"
  | _ + 1, .lit (.natVal n) => natS n
  | _ + 1, .lit (.strVal s) => "\"" ++ s ++ "\""
  | k + 1, .mdata _ e => exprStr k e
  | k + 1, .proj s i e => exprStr k e ++ "." ++ nameStr s ++ "." ++ natS i

/-- For each theorem: its axioms (`AXIOMS …`) and its statement (`STATEMENT …`), which
lean/check.py compares with lean/statements.expected (a theorem cannot be weakened under the
same name). -/
def report : List Name → CommandElabM Unit
  | [] => pure ()
  | n :: ns => do
    let ax ← collectAxioms n
    let env ← getEnv
    IO.println ("AXIOMS " ++ nameStr n ++ ": " ++ leaves env ax.toList)
    match env.find? n with
    | some ci => IO.println ("STATEMENT " ++ nameStr n ++ ": " ++ exprStr 10000 ci.type)
    | none => IO.println ("STATEMENT " ++ nameStr n ++ ": ?missing")
    report ns

end Sketchpad.AxiomReport

open Sketchpad.AxiomReport in
#eval report [
  -- Theorem 1: reduction
  ``Sketchpad.reduction_add,
  ``Sketchpad.reduction_sub,
  ``Sketchpad.reduction_mul_row,
  -- Theorem 2: correctness of the reference
  ``Sketchpad.add_correct,
  ``Sketchpad.sub_correct,
  ``Sketchpad.mul_row_correct,
  ``Sketchpad.mul_correct,
  -- Theorem 3: no finite test for history-reading steppers
  ``Sketchpad.no_finite_test,
  -- Theorem 4: perturbation
  ``Sketchpad.perturbation,
  ``Sketchpad.perturbation_add,
  ``Sketchpad.perturbation_mul_row,
  -- Theorem 5: composition
  ``Sketchpad.mul_exact,
  ``Sketchpad.mul_exact_correct,
  ``Sketchpad.compose_exact,
  -- issue 11 (lean2a): the driver (Driver.lean)
  ``Sketchpad.run_congr,
  ``Sketchpad.run_agree,
  ``Sketchpad.closed_bind,
  ``Sketchpad.reduction_of,
  -- issue 11 (lean2a): comparison, zero test, increments (Compare.lean)
  ``Sketchpad.compare_correct,
  ``Sketchpad.reduction_compare,
  ``Sketchpad.compare_exact_correct,
  ``Sketchpad.zero_correct,
  ``Sketchpad.reduction_zero,
  ``Sketchpad.inc_correct,
  ``Sketchpad.reduction_inc,
  ``Sketchpad.add2_correct,
  ``Sketchpad.reduction_add2,
  -- issue 11 (lean2a): signed procedures (Signed.lean)
  ``Sketchpad.signed_add_correct,
  ``Sketchpad.signed_sub_correct,
  ``Sketchpad.reduction_signed_add,
  ``Sketchpad.reduction_signed_sub,
  ``Sketchpad.neg_correct,
  ``Sketchpad.reduction_neg,
  ``Sketchpad.signed_mul_correct,
  ``Sketchpad.reduction_signed_mul,
  -- issue 11 (lean2a): the expression evaluator (Evaluator.lean)
  ``Sketchpad.evaluator_exact,
  ``Sketchpad.evaluator_correct,
  ``Sketchpad.evaluator_signed_exact,
  ``Sketchpad.evaluator_signed_of_V,
  -- issue 11 (lean2b): long division, signed floor division (Divide.lean), gcd (Gcd.lean)
  ``Sketchpad.div_correct,
  ``Sketchpad.reduction_divide,
  ``Sketchpad.divmod_correct,
  ``Sketchpad.reduction_divmod,
  ``Sketchpad.signed_gcd_correct,
  ``Sketchpad.reduction_gcd,
  -- issue 11 (lean2b): the evaluator with //, %, gcd (EvalDiv.lean)
  ``Sketchpad.evaluator_div_exact,
  ``Sketchpad.evaluator_div_of_V,
  -- issue 11 (lean2b): square root (Sqrt.lean), the evaluator with every operation (EvalAll.lean)
  ``Sketchpad.sqrt_correct,
  ``Sketchpad.isqrt_correct,
  ``Sketchpad.reduction_isqrt,
  ``Sketchpad.evaluator_all_exact,
  ``Sketchpad.evaluator_all_of_V,
  -- Carry-select addition (issue 7)
  ``Sketchpad.select_add_eq,
  ``Sketchpad.select_add_exact]

-- issue 15 (lean2c): the parallel mode (Parallel.lean)
open Sketchpad.AxiomReport in
#eval report [
  ``Sketchpad.select_scan_eq,
  ``Sketchpad.select_scan_halted,
  ``Sketchpad.select_scan_exact,
  ``Sketchpad.select_rows_eq,
  ``Sketchpad.sel_add_exact,
  ``Sketchpad.sel_sub_exact,
  ``Sketchpad.sel_mul_row_exact,
  ``Sketchpad.sel_compare_exact,
  ``Sketchpad.sel_zero_exact,
  ``Sketchpad.sel_inc_exact,
  ``Sketchpad.sel_compare_limit,
  ``Sketchpad.sel_zero_limit,
  ``Sketchpad.sel_inc_limit,
  ``Sketchpad.par_mul_exact,
  ``Sketchpad.speculate_eq,
  ``Sketchpad.speculate_no_fallback,
  ``Sketchpad.parallel_eq,
  ``Sketchpad.parallel_exact,
  ``Sketchpad.par_signed_add_exact,
  ``Sketchpad.trial_speculate_eq,
  ``Sketchpad.trial_select,
  ``Sketchpad.trial_copies,
  ``Sketchpad.together_eq]

-- issue 21: the shipped runtime's batches (Batch.lean, Shipped.lean) and the golden traces
-- (GoldenCheck.lean; every golden theorem is `goldenOK_sound` of one kernel decision, or, for a
-- long gcd, `golden_gcd` of one decision per round; the instances themselves are not listed: their
-- statements hold whole traces, too large for this report in the wasm checker)
open Sketchpad.AxiomReport in
#eval report [
  ``Sketchpad.rounds_run,
  ``Sketchpad.mulP_val,
  ``Sketchpad.solve_seq_eval,
  ``Sketchpad.golden_seq_eval,
  ``Sketchpad.goldenOK_sound,
  ``Sketchpad.gcd_chain,
  ``Sketchpad.golden_gcd]

-- issue 21: the parallel mode (the default) as shipped returns the sequential result and writes the
-- sequential steps (ShippedPar.lean; without `*`, whose parallel rows are summed as a tree)
open Sketchpad.AxiomReport in
#eval report [
  ``Sketchpad.par_eq,
  ``Sketchpad.solve_par_seq,
  ``Sketchpad.solve_par_of_V]

-- issue 21: the parallel product as shipped (ShippedMul.lean: the sum tree's value), `*` in the
-- parallel evaluator (ShippedParMul.lean, ShippedMulNode.lean): the default mode's own theorem
-- for every operation
open Sketchpad.AxiomReport in
#eval report [
  ``Sketchpad.mulParB_out,
  ``Sketchpad.solveB_dout,
  ``Sketchpad.mul_node,
  ``Sketchpad.sgnMulB_steps,
  ``Sketchpad.solve_par_seq_all,
  ``Sketchpad.solve_par_all_of_V]
