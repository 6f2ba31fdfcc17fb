-- The Sketchpad Lean companion: every module, so that `lake build` checks every theorem.
import Sketchpad.Basic
import Sketchpad.Table
import Sketchpad.Runtime
import Sketchpad.Facts
import Sketchpad.Reduction
import Sketchpad.Correct
import Sketchpad.Compose
import Sketchpad.History
import Sketchpad.Perturb
-- issue 11 (lean2a): the driver and the procedures it drives
import Sketchpad.Driver
import Sketchpad.TableProc
import Sketchpad.Compare
import Sketchpad.Signed
import Sketchpad.Evaluator
-- issue 11 (lean2b): long division, signed floor division, gcd
import Sketchpad.TableDiv
import Sketchpad.Divide
import Sketchpad.Gcd
import Sketchpad.EvalDiv
import Sketchpad.TableSqrt
import Sketchpad.Sqrt
import Sketchpad.EvalAll
import Sketchpad.Axioms
-- issue 15 (lean2c): the parallel mode writes the sequential sheet
import Sketchpad.Parallel
-- issue 21: the shipped runtime's batches in both modes, and the golden traces as theorems
import Sketchpad.Batch
import Sketchpad.Shipped
import Sketchpad.GoldenCheck
import Sketchpad.ShippedSeq
import Sketchpad.ShippedPar
import Sketchpad.ShippedMul
import Sketchpad.ShippedParMul
import Sketchpad.ShippedMulNode
import Sketchpad.ShippedMulSteps
import Sketchpad.GoldenSeq
import Sketchpad.GoldenPar1
import Sketchpad.GoldenPar2
import Sketchpad.GoldenPar3
import Sketchpad.GoldenPar4
import Sketchpad.GoldenPar5
import Sketchpad.GoldenWit
import Sketchpad.Corpus
