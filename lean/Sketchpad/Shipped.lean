/-
  Sketchpad.Shipped — `solve` as it ships (issue 21): every procedure of
  `sketchpad/procedures.py` in both modes, with the runtime's batches (`PB`, Sketchpad.Batch),
  Python's `InputError`s and size limits, and the expression evaluator of `solve.ev`.

  The sequential mode (`parallel=False`) runs the programs the proofs are about (`sgnAddP`,
  `divmodP`'s pieces, `isqrtP`, `gcdP`, `negP`, and `mulP`'s rounds and additions), each view a
  batch of its own except the partial rows of a product, which `together` runs in lock step.
  The parallel mode (the default) has carry-select scans (`PB.sel`, Python's limit
  `max(width) + 2`, the states in `FAMILIES`' order), speculative blocks for quotient and root
  digits (`PB.spec` with `trial_probes`), and the product's sum tree (`_sum_tree`).

  The golden traces (`web/golden/`, recorded by Python, replayed by JavaScript) are theorems about
  `solveTop` (Sketchpad/Golden*.lean, generated): the batches `PB.toB` presents, view by view and
  step by step, and the result.
-/
module

public import Sketchpad.Batch
public import Sketchpad.EvalAll

@[expose] public noncomputable section

set_option autoImplicit false

namespace Sketchpad

open Prog

variable {α : Type}

/-! ### Families and probes in Python's order -/

/-- `MUL_CARRIES[d]`: blank, then `1 … d−1` (the order `select_probes` presents them in). -/
def mulStatesPy (d : Cell) : States :=
  (.MUL, .blank) :: (([.d1, .d2, .d3, .d4, .d5, .d6, .d7, .d8] : List Cell).filter
    fun c => decide (c.val < d.val)).map fun c => (.MUL, c)

/-- A scan from column 0 as `scan` starts it in the parallel mode (limit `max(width) + 2`). -/
def scanAt (S : States) (op : Op) (xs ys : List Cell) (cr : Bool) : Scan :=
  ⟨S, max xs.length ys.length + 2, op, xs, ys, .blank, cr⟩

/-- A partial-product row `x · d` (`_partial_row`: the multiplier digit in every column). -/
def mulRowScan (xs : List Cell) (d : Cell) : Scan :=
  ⟨mulStatesPy d, xs.length + 2, .MUL, xs, List.replicate (xs.length + 3) d, .blank, true⟩

/-- `_digits_and(sym)`: the digits, and the symbol itself when it is not one. -/
def digitsAnd (c : Cell) : List Cell := if c.isDigit = true then digitCells else digitCells ++ [c]

/-- `BORROWS`. -/
def borrowsPy : List Cell := [.blank, .d1]

/-- The probes of one column of a trial subtraction for one `y` symbol and one borrow: every
digit `x`, and the row's own symbol when it is not a digit. -/
def subCol (xi yy c : Cell) : List View :=
  digitCells.map (fun x => (⟨.SUB, x, yy, c⟩ : View)) ++
    (if xi.isDigit = true then [] else [(⟨.SUB, xi, yy, c⟩ : View)])

/-- Columns `i, i+1, …` of `trial_probes` (`w` of them), order: column, then `y`, then borrow,
then `x`. -/
def trialCols (freeY : Nat) : Nat → Nat → List Cell → List Cell → List View
  | 0, _, _, _ => []
  | w + 1, i, rs, ys =>
    ((if i < freeY then digitsAnd (hd ys) else [hd ys]).flatMap fun yy =>
      (if i = 0 then [Cell.blank] else borrowsPy).flatMap fun c => subCol (hd rs) yy c) ++
    trialCols freeY w (i + 1) (tl rs) (tl ys)

/-- `DQ_STATES` as views: (borrow, count so far), the count outer. -/
def dqViews : List View :=
  ([.blank, .d1, .d2, .d3, .d4, .d5, .d6, .d7, .d8, .d9] : List Cell).flatMap fun cnt =>
    (borrowsPy.filter fun bo => !(decide (bo = .blank) && decide (cnt = .d9))).map
      fun bo => (⟨.DQ, bo, cnt, .blank⟩ : View)

/-- `trial_probes(r, y, …, free_y)`: every view the trials of one digit could present. -/
def trialProbes (r y : List Cell) (freeY : Nat) : List View :=
  trialCols freeY (max r.length y.length) 0 r y ++
    [⟨.SUB, .blank, .blank, .blank⟩, ⟨.SUB, .blank, .blank, .d1⟩] ++ dqViews

/-! ### Small procedures, parallel mode (one carry-select batch each) -/

/-- A single carry-select scan from column 0, then `k` on its followed run. -/
def selScan (S : States) (op : Op) (xs ys : List Cell) (cr : Bool)
    (k : List (View × Step) → PB α) : PB α :=
  .sel [scanAt S op xs ys cr] fun rs => k (rs.headD [])

/-- `zero_test`. -/
def zeroB (xs : List Cell) (k : Cell → PB α) : PB α :=
  selScan ztStates .ZT xs [] false fun t => k (lastSym t)

/-- `compare_rows`. -/
def compareB (xs ys : List Cell) (k : Cell → PB α) : PB α :=
  selScan cmpStates .CMPEQ xs ys false fun t => k (lastSym t)

/-- `increment` (`INC`). -/
def incB (xs : List Cell) (k : List Cell → PB α) : PB α :=
  selScan incStates .INC xs [] false fun t => k (rowOf t ++ xs.drop t.length)

/-! ### Signed addition and subtraction, parallel mode -/

def sgnSubB (a b : SNum) (s : Step) : PB SNum :=
  if s.next = .SWAP then selScan (rowStates .SUB) .SUB b.2 a.2 true fun t => .done (s.sym, canon (rowOf t))
  else selScan (rowStates .SUB) .SUB a.2 b.2 true fun t => .done (s.sym, canon (rowOf t))

def sgnAddKB (op : Op) (a b : SNum) (s : Step) : PB SNum :=
  if s.next = .ADD then selScan (rowStates .ADD) .ADD a.2 b.2 true fun t => .done (s.sym, canon (rowOf t))
  else compareB a.2 b.2 fun fl => .ask ⟨op, a.1, b.1, fl⟩ (sgnSubB a b)

/-- `signed_add` in the parallel mode. -/
def sgnAddB (op : Op) (a b : SNum) : PB SNum := .ask ⟨op, a.1, b.1, .blank⟩ (sgnAddKB op a b)

/-! ### Products -/

/-- The partial rows with their columns `(row, j)`. -/
def withCols : Nat → List (List Cell) → List (List Cell × Nat)
  | _, [] => []
  | j, r :: rs => (r, j) :: withCols (j + 1) rs

/-- The pairs `(items[k], items[k+1])`, `k = 0, 2, 4, …`, of a level of `_sum_tree`. -/
def pairsOfItems : List (List Cell × Nat) → List ((List Cell × Nat) × (List Cell × Nat))
  | a :: b :: t => (a, b) :: pairsOfItems t
  | _ => []

/-- The item left over at the end of an odd level. -/
def leftover : List (List Cell × Nat) → List (List Cell × Nat)
  | _ :: _ :: t => leftover t
  | l => l

/-- `add_rows(r1, shifted r2, start = s2 - s1)`: the scan from column `start`. -/
def pairScan (pr : (List Cell × Nat) × (List Cell × Nat)) : Scan :=
  scanAt (rowStates .ADD) .ADD (pr.1.1.drop (pr.2.2 - pr.1.2)) pr.2.1 true

/-- The sum row: `r1`'s own cells below `start`, then what the scan wrote; at `r1`'s column. -/
def pairSum (pr : (List Cell × Nat) × (List Cell × Nat)) (t : List (View × Step)) : List Cell × Nat :=
  (pr.1.1.take (pr.2.2 - pr.1.2) ++ rowOf t, pr.1.2)

/-- `_sum_tree`: the pairs of a level added together (one batch), level after level. -/
def sumTreeB (k : List Cell → PB α) : Nat → List (List Cell × Nat) → PB α
  | 0, items => k (items.headD ([], 0)).1
  | n + 1, items =>
    match items with
    | [] => k []
    | [it] => k it.1
    | _ => .sel ((pairsOfItems items).map pairScan) fun ts =>
        sumTreeB k n (List.zipWith pairSum (pairsOfItems items) ts ++ leftover items)

/-- `product_rows`, parallel mode: every partial row carry-select in one batch, then the tree. -/
def mulParB (xs ys : List Cell) (k : List Cell → PB α) : PB α :=
  .sel (ys.map (mulRowScan xs)) fun ts => sumTreeB k ys.length (withCols 0 (ts.map rowOf))

/-- `product_rows`, sequential mode: the partial rows in lock step (`together`: one batch a
column), then the additions one after another (Signed.lean's `mulFinish`, each view a batch):
its sequential program is Signed.lean's `mulP` (`mulSeqB_seq`). -/
def mulSeqB (xs ys : List Cell) (k : List Cell → PB α) : PB α :=
  .tog (xs.length + 3) (ys.map (mulRowP xs)) fun ps =>
    (PB.lift (mulFinish (ps.map fun p => rowOf (Prog.resD [] p)))).bind k

/-- `signed_mul`. -/
def sgnMulB (par : Bool) (a b : SNum) : PB SNum :=
  .ask ⟨.SGNMUL, a.1, b.1, .blank⟩ fun s =>
    (bif par then mulParB a.2 b.2 else mulSeqB a.2 b.2) fun r => .done (s.sym, canon r)

/-! ### Long division, parallel mode: one speculative batch per quotient digit -/

def divGoB (b : List Cell) (k : List Cell × List Cell → PB α) : List Cell → List Cell → List Cell → PB α
  | [], rem, q => k (q, rem)
  | x :: xs, rem, q =>
    .spec (trialProbes (x :: rem.take b.length) b 0) (qdigP b 10 (x :: rem.take b.length) .blank)
      fun p => divGoB b k xs p.2 (p.1 :: q)

/-- `divide_rows`, parallel mode (the remainder cut to `max(lb, 1)` cells, as shipped). -/
def divB (a b : List Cell) (k : List Cell × List Cell → PB α) : PB α :=
  if a.length < b.length then
    .spec (trialProbes a b 0) (qdigP b 10 a .blank) fun p => k ([p.1], p.2.take (max b.length 1))
  else
    divGoB b (fun p => k (p.1, p.2.take (max b.length 1)))
      (a.take (a.length - b.length + 1)).reverse (a.drop (a.length - b.length + 1)) []

def sdivAdjB (b : SNum) (q r : List Cell) (s : Step) : PB (SNum × SNum) :=
  if s.next = .ADJ then
    incB q fun q' => selScan (rowStates .SUB) .SUB b.2 r true fun t =>
      .done ((s.sym, canon q'), (s.flag, canon (rowOf t)))
  else .done ((s.sym, canon q), (s.flag, canon r))

/-! ### Square root, parallel mode: two speculative batches per root digit -/

/-- `_odd_number`: `2p = p + p`, then the `ODD` view writes the units digit of `20p + 1`. -/
def oddP (root : List Cell) : Prog (List Cell) :=
  (rowsP .ADD root root).bind fun t => ask ⟨.ODD, .blank, .blank, .blank⟩ fun s => done (s.sym :: rowOf t)

/-- The `ADD2` and `INC` probes of a root digit's batch. -/
def rootIncViews (odd : List Cell) : List View :=
  (([.d1, .d3, .d5, .d7, .d9] : List Cell).map fun d => (⟨.ADD2, d, .blank, .blank⟩ : View)) ++
    (digitsAnd (hd (tl odd))).map fun d => (⟨.INC, d, .blank, .blank⟩ : View)

def sqrtGoB (k : List Cell → PB α) : List (List Cell) → List Cell → List Cell → PB α
  | [], root, _ => k root
  | pr :: ps, root, rem =>
    .spec (selViews (scanAt (rowStates .ADD) .ADD root root true) ++ [⟨.ODD, .blank, .blank, .blank⟩])
      (oddP root) fun odd =>
    .spec (trialProbes (pr ++ rem) odd 2 ++ rootIncViews odd) (rdigP 10 (pr ++ rem) odd .blank)
      fun dr => sqrtGoB k ps (dr.1 :: root) (dr.2.take (root.length + 2))

/-! ### Gcd, parallel mode -/

/-- One round of `signed_gcd`'s loop: the zero test of `b` (`Z` ends: `none`), else the
division and the next pair `(b, canonical remainder)`. -/
def gcdRoundB (xs ys : List Cell) : PB (Option (List Cell × List Cell)) :=
  zeroB ys fun z => if z = .zero then .done none else divB xs ys fun qr => .done (some (ys, canon qr.2))

/-- The rest of the loop after a round. -/
def gcdNextB (k : List Cell → PB α) (rec : List Cell → List Cell → PB α) (xs : List Cell) :
    Option (List Cell × List Cell) → PB α
  | none => k xs
  | some (a, b) => rec a b

/-- `signed_gcd`'s loop, parallel mode, at most `n` rounds. -/
def gcdLoopB (k : List Cell → PB α) : Nat → List Cell → List Cell → PB α
  | 0, xs, _ => k xs
  | n + 1, xs, ys => (gcdRoundB xs ys).bind (gcdNextB k (gcdLoopB k n) xs)

/-! ### `InputError`s and limits -/

/-- The operations with their own size limit (`QUADRATIC_OPS`). -/
inductive QOp where
  | mul | quot | rem | sqrt | gcd
  deriving DecidableEq

/-- Python's `InputError`s raised while solving (the parser's are not modelled: the input is
the parsed tree).  Numbers as in the message. -/
inductive PyErr where
  | divZero
  | negSqrt
  | intermediate (n limit : Nat)
  | operand (op : QOp) (n limit : Nat)
  | result (n limit : Nat)
  deriving DecidableEq

/-- `expr.Limits`: `max_digits`, `max_quadratic_digits`. -/
structure Limits where
  maxDigits : Nat
  maxQuad : Nat

/-- `Limits()`. -/
def Limits.dflt : Limits := ⟨20000, 2000⟩

/-- `_check(limits, op, *nums)`: the first number over a limit. -/
def checkNums (L : Limits) (q : Option QOp) : List SNum → Option PyErr
  | [] => none
  | n :: ns =>
    if L.maxDigits < n.2.length then some (.intermediate n.2.length L.maxDigits)
    else match q with
      | some o => if L.maxQuad < n.2.length then some (.operand o n.2.length L.maxQuad) else checkNums L q ns
      | none => checkNums L q ns

/-! ### The procedures of `solve.ev`, in either mode -/

/-- `signed_divmod` with its `InputError`. -/
def divmodB (par : Bool) (a b : SNum) : PB (Except PyErr (SNum × SNum)) :=
  bif par then
    zeroB b.2 fun z =>
      if z = .zero then .done (.error .divZero)
      else divB a.2 b.2 fun qr => zeroB (canon qr.2) fun z' =>
        .ask ⟨.SGNDIV, a.1, b.1, z'⟩ fun s => (sdivAdjB b qr.1 (canon qr.2) s).bind fun r => .done (.ok r)
  else
    (PB.lift (zeroP b.2)).bind fun z =>
      if z = .zero then .done (.error .divZero)
      else (PB.lift ((divP a.2 b.2).bind (sdivSgn a b))).bind fun r => .done (.ok r)

/-- `signed_isqrt` with its `InputError` (a negative number other than `-0`; before any view). -/
def isqrtB (par : Bool) (a : SNum) : PB (Except PyErr SNum) :=
  if a.1 = .minus ∧ a.2 ≠ [.d0] then .done (.error .negSqrt)
  else bif par then
    .ask ⟨.ABS, a.1, .blank, .blank⟩ fun s =>
      sqrtGoB (fun root => .done (.ok (s.sym, canon root))) (pairsOf a.2).reverse [] []
  else (PB.lift (isqrtP a)).bind fun r => .done (.ok r)

/-- `signed_gcd`. -/
def gcdB (par : Bool) (a b : SNum) : PB SNum :=
  bif par then
    .ask ⟨.ABS, a.1, .blank, .blank⟩ fun s =>
      gcdLoopB (fun g => .done (s.sym, canon g)) (5 * (a.2.length + b.2.length) + 10) a.2 b.2
  else PB.lift (gcdP a b)

/-- A binary node's procedure (after `_check`). -/
def binB (par : Bool) (o : Op2x) (x y : SNum) : PB (Except PyErr SNum) :=
  match o with
  | .add => (bif par then sgnAddB .SGNADD x y else PB.lift (sgnAddP .SGNADD x y)).bind fun r => .done (.ok r)
  | .sub => (bif par then sgnAddB .SGNSUB x y else PB.lift (sgnAddP .SGNSUB x y)).bind fun r => .done (.ok r)
  | .mul => (sgnMulB par x y).bind fun r => .done (.ok r)
  | .quot => (divmodB par x y).bind fun r => .done (r.map Prod.fst)
  | .rem => (divmodB par x y).bind fun r => .done (r.map Prod.snd)
  | .gcd => (gcdB par x y).bind fun r => .done (.ok r)

def quadOf : Op2x → Option QOp
  | .mul => some .mul
  | .quot => some .quot
  | .rem => some .rem
  | .gcd => some .gcd
  | _ => none

/-- `solve.ev`: operands first, left to right; an error ends the solve. -/
def solveB (par : Bool) (L : Limits) : Expr Op1x Op2x → PB (Except PyErr SNum)
  | .lit n => .done (.ok n)
  | .un .neg e => (solveB par L e).bind fun r =>
      match r with
      | .error x => .done (.error x)
      | .ok x => (PB.lift (negP x)).bind fun y => .done (.ok y)
  | .un .sqrt e => (solveB par L e).bind fun r =>
      match r with
      | .error x => .done (.error x)
      | .ok x =>
        match checkNums L (some .sqrt) [x] with
        | some err => .done (.error err)
        | none => isqrtB par x
  | .bin o e1 e2 => (solveB par L e1).bind fun r1 =>
      match r1 with
      | .error x => .done (.error x)
      | .ok x => (solveB par L e2).bind fun r2 =>
        match r2 with
        | .error y => .done (.error y)
        | .ok y =>
          match checkNums L (quadOf o) [x, y] with
          | some err => .done (.error err)
          | none => binB par o x y

/-- The result's own size limit (`solve`, after `ev`). -/
def finRes (L : Limits) (x : SNum) : Except PyErr SNum :=
  if L.maxDigits < x.2.length then .error (.result x.2.length L.maxDigits) else .ok x

def solveFin (L : Limits) : Except PyErr SNum → PB (Except PyErr SNum)
  | .error x => .done (.error x)
  | .ok x => .done (finRes L x)

/-- `solve`: the evaluator, then the result's own size limit. -/
def solveTop (par : Bool) (L : Limits) (e : Expr Op1x Op2x) : PB (Except PyErr SNum) :=
  (solveB par L e).bind (solveFin L)

end Sketchpad
