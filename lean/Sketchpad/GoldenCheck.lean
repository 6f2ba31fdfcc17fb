/-
  Sketchpad.GoldenCheck — how a golden trace is compared with the Lean model (issue 21).

  A golden trace (`web/golden/trace-*.json`, written by Python, replayed by JavaScript) records
  every batch of a solve: each presented view with the step it got, and the result.  The
  generated modules `Sketchpad/Golden*.lean` state, for each trace, that `solveTop` — the model
  of the shipped runtime (Sketchpad.Shipped) — run with the reference stepper on the trace's
  input presents exactly those batches and returns that result: `goldenOK … = true`, proven by
  the kernel evaluating the model (`decide +kernel`).

  The expected batches are stored compactly (a list literal of thousands of views costs the
  elaborator tens of milliseconds per view): a view and its step are one number below `2^35`
  (`pairCode`: seven fields of 5 bits, every field's code below 32), and up to 64 of them one
  number (`chunkCode`, behind a leading 1).  `decodeBatches` reads the numbers back, and
  `goldenOK_sound` says what a passing check means: the model's batches *are* the decoded ones
  and its result is the trace's.
-/
module

public import Sketchpad.Shipped

@[expose] public noncomputable section

set_option autoImplicit false

namespace Sketchpad

open Drive

/-! ### Codes -/

def Cell.ofCode : Nat → Cell
  | 0 => .d0 | 1 => .d1 | 2 => .d2 | 3 => .d3 | 4 => .d4
  | 5 => .d5 | 6 => .d6 | 7 => .d7 | 8 => .d8 | 9 => .d9
  | 10 => .blank | 11 => .plus | 12 => .minus | 13 => .less | 14 => .equal
  | 15 => .greater | 16 => .zero | _ => .nonzero

def Op.ofCode : Nat → Op
  | 0 => .ADD | 1 => .SUB | 2 => .CMPEQ | 3 => .CMPLT | 4 => .CMPGT | 5 => .MUL | 6 => .ZT
  | 7 => .INC | 8 => .ADD2 | 9 => .DQ | 10 => .ODD | 11 => .NEG | 12 => .ABS | 13 => .SGNADD
  | 14 => .SGNSUB | 15 => .SGNMUL | 16 => .SGNDIV | 17 => .HALT | 18 => .CMP | 19 => .SWAP
  | _ => .ADJ

theorem Cell.ofCode_code (c : Cell) : Cell.ofCode c.code = c := by cases c <;> rfl
theorem Op.ofCode_code (o : Op) : Op.ofCode o.code = o := by cases o <;> rfl
theorem Cell.code_lt (c : Cell) : c.code < 32 := by cases c <;> decide
theorem Op.code_lt (o : Op) : o.code < 32 := by cases o <;> decide

/-- A view and its step as one number: `(op, a, b, c, sym, flag, next)`, 5 bits each, the
view's operation highest. -/
def pairCode (p : View × Step) : Nat :=
  (((((p.1.op.code * 32 + p.1.a.code) * 32 + p.1.b.code) * 32 + p.1.c.code) * 32 + p.2.sym.code) * 32
    + p.2.flag.code) * 32 + p.2.next.code

/-- The inverse of `pairCode` (`pairOfCode_code`). -/
def pairOfCode (n : Nat) : View × Step :=
  (⟨Op.ofCode (n / 32 / 32 / 32 / 32 / 32 / 32 % 32), Cell.ofCode (n / 32 / 32 / 32 / 32 / 32 % 32),
    Cell.ofCode (n / 32 / 32 / 32 / 32 % 32), Cell.ofCode (n / 32 / 32 / 32 % 32)⟩,
   ⟨Cell.ofCode (n / 32 / 32 % 32), Cell.ofCode (n / 32 % 32), Op.ofCode (n % 32)⟩)

theorem mod_32 (a x : Nat) (hx : x < 32) : (a * 32 + x) % 32 = x := by omega
theorem div_32 (a x : Nat) (hx : x < 32) : (a * 32 + x) / 32 = a := by omega

theorem pairOfCode_code (p : View × Step) : pairOfCode (pairCode p) = p := by
  obtain ⟨⟨o, a, b, c⟩, ⟨s, fl, nx⟩⟩ := p
  have ho := Op.code_lt o
  have ha := Cell.code_lt a
  have hb := Cell.code_lt b
  have hc := Cell.code_lt c
  have hs := Cell.code_lt s
  have hf := Cell.code_lt fl
  have hn := Op.code_lt nx
  unfold pairOfCode pairCode
  simp only [div_32 _ _ hn, div_32 _ _ hf, div_32 _ _ hs, div_32 _ _ hc, div_32 _ _ hb, div_32 _ _ ha,
    mod_32 _ _ hn, mod_32 _ _ hf, mod_32 _ _ hs, mod_32 _ _ hc, mod_32 _ _ hb, mod_32 _ _ ha,
    Nat.mod_eq_of_lt ho, Cell.ofCode_code, Op.ofCode_code]

theorem pairCode_lt (p : View × Step) : pairCode p < 2 ^ 35 := by
  have ho := Op.code_lt p.1.op
  have ha := Cell.code_lt p.1.a
  have hb := Cell.code_lt p.1.b
  have hc := Cell.code_lt p.1.c
  have hs := Cell.code_lt p.2.sym
  have hf := Cell.code_lt p.2.flag
  have hn := Op.code_lt p.2.next
  unfold pairCode
  have e : (2 : Nat) ^ 35 = 34359738368 := rfl
  rw [e]
  omega

/-! ### Chunks of up to 64 pairs -/

/-- Up to 64 pairs as one number: the first pair lowest, a leading 1 on top. -/
def enc : List (View × Step) → Nat
  | [] => 1
  | p :: ps => pairCode p + 2 ^ 35 * enc ps

/-- The pairs of a chunk (`dec_enc`). -/
def dec : Nat → Nat → List (View × Step)
  | 0, _ => []
  | k + 1, n => if n ≤ 1 then [] else pairOfCode (n % 2 ^ 35) :: dec k (n / 2 ^ 35)

theorem enc_pos : ∀ ps : List (View × Step), 1 ≤ enc ps
  | [] => Nat.le_refl 1
  | p :: ps => by
    have h := enc_pos ps
    show 1 ≤ pairCode p + 2 ^ 35 * enc ps
    have : 1 ≤ 2 ^ 35 * enc ps := Nat.mul_le_mul (Nat.one_le_two_pow) h
    omega

theorem dec_enc : ∀ (k : Nat) (ps : List (View × Step)), ps.length ≤ k → dec k (enc ps) = ps
  | 0, [], _ => rfl
  | 0, _ :: _, h => absurd h (by simp)
  | k + 1, [], _ => by
    show (if enc [] ≤ 1 then [] else _) = []
    exact if_pos (Nat.le_refl 1)
  | k + 1, p :: ps, h => by
    have hl : ps.length ≤ k := by simp at h; omega
    have hp := pairCode_lt p
    have hq := enc_pos ps
    have hbig : ¬ (pairCode p + 2 ^ 35 * enc ps ≤ 1) := by
      have : 2 ^ 35 ≤ 2 ^ 35 * enc ps := Nat.le_mul_of_pos_right _ hq
      have e : (2 : Nat) ^ 35 = 34359738368 := rfl
      omega
    have em : (pairCode p + 2 ^ 35 * enc ps) % 2 ^ 35 = pairCode p := by
      rw [Nat.add_mul_mod_self_left]; exact Nat.mod_eq_of_lt hp
    have ed : (pairCode p + 2 ^ 35 * enc ps) / 2 ^ 35 = enc ps := by
      rw [Nat.add_mul_div_left _ _ (Nat.two_pow_pos 35), Nat.div_eq_of_lt hp, Nat.zero_add]
    show (if pairCode p + 2 ^ 35 * enc ps ≤ 1 then [] else
      pairOfCode ((pairCode p + 2 ^ 35 * enc ps) % 2 ^ 35) :: dec k ((pairCode p + 2 ^ 35 * enc ps) / 2 ^ 35)) = p :: ps
    rw [if_neg hbig, em, ed, pairOfCode_code, dec_enc k ps hl]

/-- The digits of `n`, units first, `k` of them (a leaf of a golden trace's expression, as
`operand` writes it). -/
def natRow : Nat → Nat → List Cell
  | 0, _ => []
  | k + 1, n => Cell.digit (n % 10) :: natRow k (n / 10)

/-! ### The check and what it means -/

/-- One batch against its chunks (`n`: fuel, one more than the chunks). -/
def batchOK : Nat → List (View × Step) → List Nat → Bool
  | 0, _, _ => false
  | _ + 1, [], [] => true
  | _ + 1, _ :: _, [] => false
  | n + 1, l, e :: es => Nat.beq (enc (l.take 64)) e && batchOK n (l.drop 64) es

/-- Every batch against its chunks. -/
def batchesOK : List (List (View × Step)) → List (List Nat) → Bool
  | [], [] => true
  | b :: bs, e :: es => batchOK (e.length + 1) b e && batchesOK bs es
  | _, _ => false

/-- The batches a list of chunk lists denotes. -/
def decodeBatches (E : List (List Nat)) : List (List (View × Step)) := E.map fun e => e.flatMap (dec 64)

/-- The result a solve reports: the value (`Num.value`), or the `InputError`. -/
def resultOf : Except PyErr SNum → Except PyErr Int
  | .ok x => .ok x.val
  | .error e => .error e

def resultOK : Except PyErr SNum → Except PyErr Int → Bool
  | .ok x, .ok v => decide (x.val = v)
  | .error e, .error e' => decide (e = e')
  | _, _ => false

/-- A golden trace's check: the model's batches (with the reference stepper) against the
trace's chunks, and its result against the trace's. -/
def goldenOK (p : PB (Except PyErr SNum)) (E : List (List Nat)) (r : Except PyErr Int) : Bool :=
  batchesOK (dlog refStep p.drive) E && resultOK (dout refStep p.drive) r

theorem batchOK_sound : ∀ (n : Nat) (l : List (View × Step)) (E : List Nat),
    batchOK n l E = true → l = E.flatMap (dec 64)
  | 0, _, _, h => absurd h (by simp [batchOK])
  | _ + 1, [], [], _ => rfl
  | _ + 1, _ :: _, [], h => absurd h (by simp [batchOK])
  | n + 1, [], e :: es, h => by
    have h' : (Nat.beq (enc (([] : List (View × Step)).take 64)) e && batchOK n (([] : List (View × Step)).drop 64) es) = true := h
    rw [Bool.and_eq_true] at h'
    obtain ⟨h1', h2⟩ := h'
    have h1 := Nat.eq_of_beq_eq_true h1'
    have := batchOK_sound n [] es h2
    rw [List.flatMap_cons, ← h1, ← this]
    rfl
  | n + 1, x :: xs, e :: es, h => by
    have h' : (Nat.beq (enc ((x :: xs).take 64)) e && batchOK n ((x :: xs).drop 64) es) = true := h
    rw [Bool.and_eq_true] at h'
    obtain ⟨h1', h2⟩ := h'
    have h1 := Nat.eq_of_beq_eq_true h1'
    have hr := batchOK_sound n _ es h2
    have hd : dec 64 e = (x :: xs).take 64 := by
      rw [← h1]; exact dec_enc 64 _ (List.length_take_le _ _)
    rw [List.flatMap_cons, hd, ← hr, List.take_append_drop]

theorem batchesOK_sound : ∀ (l : List (List (View × Step))) (E : List (List Nat)),
    batchesOK l E = true → l = decodeBatches E
  | [], [], _ => rfl
  | [], _ :: _, h => absurd h (by simp [batchesOK])
  | _ :: _, [], h => absurd h (by simp [batchesOK])
  | b :: bs, e :: es, h => by
    have h' : (batchOK (e.length + 1) b e && batchesOK bs es) = true := h
    rw [Bool.and_eq_true] at h'
    rw [batchOK_sound _ b e h'.1, batchesOK_sound bs es h'.2]
    rfl

theorem resultOK_sound : ∀ (x : Except PyErr SNum) (r : Except PyErr Int), resultOK x r = true → resultOf x = r
  | .ok x, .ok v, h => by
    have h' : decide (x.val = v) = true := h
    show Except.ok x.val = Except.ok v
    rw [of_decide_eq_true h']
  | .error e, .error e', h => by
    have h' : decide (e = e') = true := h
    show Except.error e = Except.error e'
    rw [of_decide_eq_true h']
  | .ok _, .error _, h => absurd h (by simp [resultOK])
  | .error _, .ok _, h => absurd h (by simp [resultOK])

/-- **What a golden theorem says.** If the check passes, the model of the shipped runtime run
with the reference stepper presents exactly the trace's batches — every view and its step, in
order, batch by batch — and returns the trace's result. -/
theorem goldenOK_sound (p : PB (Except PyErr SNum)) (E : List (List Nat)) (r : Except PyErr Int)
    (h : goldenOK p E r = true) :
    dlog refStep p.drive = decodeBatches E ∧ resultOf (dout refStep p.drive) = r := by
  have h' : (batchesOK (dlog refStep p.drive) E && resultOK (dout refStep p.drive) r) = true := h
  rw [Bool.and_eq_true] at h'
  exact ⟨batchesOK_sound _ _ h'.1, resultOK_sound _ _ h'.2⟩


/-! ### Long gcds, round by round

The kernel's memory grows with the length of one evaluation; a gcd of two 20-digit numbers
(`web/golden/trace-118.json`, 24,623 views) is checked round by round: one theorem per round of
Euclid's loop (`roundOK`: the round's batches and the next pair), chained by `gcd_chain`, which
holds for every stepper-independent fact of the model (`gcdLoopB` is its rounds in sequence). -/

/-- A round's check: its batches and its outcome. -/
def roundOK (p : PB (Option (List Cell × List Cell))) (E : List (List Nat))
    (r : Option (List Cell × List Cell)) : Bool :=
  batchesOK (dlog refStep p.drive) E && decide (dout refStep p.drive = r)

theorem roundOK_sound (p : PB (Option (List Cell × List Cell))) (E : List (List Nat))
    (r : Option (List Cell × List Cell)) (h : roundOK p E r = true) :
    dlog refStep p.drive = decodeBatches E ∧ dout refStep p.drive = r := by
  have h' : (batchesOK (dlog refStep p.drive) E && decide (dout refStep p.drive = r)) = true := h
  rw [Bool.and_eq_true] at h'
  exact ⟨batchesOK_sound _ _ h'.1, of_decide_eq_true h'.2⟩

/- The checks are irreducible to the elaborator from here on; the kernel, which decides them,
ignores that.  When a golden theorem is false, `decide +kernel` explains the failure by reducing
the check with the elaborator's own evaluator, which on a whole trace exhausts the wasm checker's
stack (`table index is out of bounds`, issue 21's remainder mutation); irreducible, that
reduction stops at once and the theorem fails with a one-line error under its own name. -/
attribute [irreducible] goldenOK roundOK

/-- The rounds of a gcd, each `(xs, ys, its batches)`: every round but the last goes on with the
next one's pair, the last one's zero test ends the loop. -/
def GcdChain : List (List Cell × List Cell × List (List Nat)) → Prop
  | [] => False
  | [(xs, ys, E)] =>
    dlog refStep (gcdRoundB xs ys).drive = decodeBatches E ∧ dout refStep (gcdRoundB xs ys).drive = none
  | (xs, ys, E) :: (xs', ys', E') :: rest =>
    (dlog refStep (gcdRoundB xs ys).drive = decodeBatches E ∧
      dout refStep (gcdRoundB xs ys).drive = some (xs', ys')) ∧ GcdChain ((xs', ys', E') :: rest)

/-- The batches of all rounds. -/
def chainE : List (List Cell × List Cell × List (List Nat)) → List (List Nat)
  | [] => []
  | (_, _, E) :: rest => E ++ chainE rest

/-- The first number of the last round: the gcd's digits. -/
def chainLast : List (List Cell × List Cell × List (List Nat)) → List Cell
  | [] => []
  | [(xs, _, _)] => xs
  | _ :: r :: rest => chainLast (r :: rest)

theorem decodeBatches_cons (e : List Nat) (E : List (List Nat)) :
    decodeBatches (e :: E) = e.flatMap (dec 64) :: decodeBatches E := rfl

theorem decodeBatches_append (A B : List (List Nat)) :
    decodeBatches (A ++ B) = decodeBatches A ++ decodeBatches B := List.map_append

/-- **The gcd loop, round by round**: a chain of rounds that fits the budget runs as its rounds
one after another, then the loop's continuation on the last pair's first number. -/
theorem gcd_chain {α : Type} (k : List Cell → PB α) :
    ∀ (rest : List (List Cell × List Cell × List (List Nat))) (xs ys : List Cell) (E : List (List Nat))
      (n : Nat), GcdChain ((xs, ys, E) :: rest) → rest.length + 1 ≤ n →
      dlog refStep (gcdLoopB k n xs ys).drive =
          decodeBatches (chainE ((xs, ys, E) :: rest)) ++ dlog refStep (k (chainLast ((xs, ys, E) :: rest))).drive ∧
        dout refStep (gcdLoopB k n xs ys).drive = dout refStep (k (chainLast ((xs, ys, E) :: rest))).drive
  | [], xs, ys, E, n, h, hn => by
    obtain ⟨m, rfl⟩ : ∃ m, n = m + 1 := ⟨n - 1, by simp at hn; omega⟩
    have e : gcdLoopB k (m + 1) xs ys = (gcdRoundB xs ys).bind (gcdNextB k (gcdLoopB k m) xs) := rfl
    obtain ⟨h1, h2⟩ := h
    rw [e, PB.dlog_bind, PB.dout_bind, h1, h2]
    refine ⟨?_, rfl⟩
    show decodeBatches E ++ _ = decodeBatches (E ++ []) ++ _
    rw [List.append_nil]
    rfl
  | (xs', ys', E') :: rest, xs, ys, E, n, h, hn => by
    obtain ⟨m, rfl⟩ : ∃ m, n = m + 1 := ⟨n - 1, by simp at hn; omega⟩
    have e : gcdLoopB k (m + 1) xs ys = (gcdRoundB xs ys).bind (gcdNextB k (gcdLoopB k m) xs) := rfl
    obtain ⟨⟨h1, h2⟩, h3⟩ := h
    have hm : rest.length + 1 ≤ m := by simp at hn; omega
    obtain ⟨i1, i2⟩ := gcd_chain k rest xs' ys' E' m h3 hm
    rw [e, PB.dlog_bind, PB.dout_bind, h1, h2]
    refine ⟨?_, i2⟩
    show decodeBatches E ++ dlog refStep (gcdLoopB k m xs' ys').drive =
      decodeBatches (E ++ chainE ((xs', ys', E') :: rest)) ++ _
    rw [i1, decodeBatches_append, List.append_assoc]
    rfl

/-- **A golden gcd of two numbers, round by round**: the `ABS` view, then the rounds. -/
theorem golden_gcd (L : Limits) (a b : SNum) (hchk : checkNums L (some .gcd) [a, b] = none)
    (E : List (List Nat)) (rest : List (List Cell × List Cell × List (List Nat)))
    (hchain : GcdChain ((a.2, b.2, E) :: rest))
    (hn : rest.length + 1 ≤ 5 * (a.2.length + b.2.length) + 10) :
    dlog refStep (solveTop true L (.bin .gcd (.lit a) (.lit b))).drive =
        [(⟨.ABS, a.1, .blank, .blank⟩, refStep ⟨.ABS, a.1, .blank, .blank⟩)] ::
          decodeBatches (chainE ((a.2, b.2, E) :: rest)) ∧
      dout refStep (solveTop true L (.bin .gcd (.lit a) (.lit b))).drive =
        finRes L ((refStep ⟨.ABS, a.1, .blank, .blank⟩).sym, canon (chainLast ((a.2, b.2, E) :: rest))) := by
  have e : solveTop true L (.bin .gcd (.lit a) (.lit b)) =
      ((PB.ask ⟨.ABS, a.1, .blank, .blank⟩ fun s =>
        gcdLoopB (fun g => .done (s.sym, canon g)) (5 * (a.2.length + b.2.length) + 10) a.2 b.2).bind
          fun r => .done (.ok r)).bind (solveFin L) := by
    show (match checkNums L (quadOf .gcd) [a, b] with
      | some err => PB.done (Except.error err)
      | none => binB true .gcd a b).bind (solveFin L) = _
    rw [show quadOf .gcd = some .gcd from rfl, hchk]
    rfl
  rw [e]
  obtain ⟨c1, c2⟩ := gcd_chain (fun g => PB.done ((refStep ⟨.ABS, a.1, .blank, .blank⟩).sym, canon g))
    rest a.2 b.2 E _ hchain hn
  have hfin : ∀ r, dlog refStep (solveFin L r).drive = [] := by intro r; cases r <;> rfl
  have hok : ∀ (p : PB SNum), dlog refStep (p.bind fun r => PB.done (Except.ok (ε := PyErr) r)).drive = dlog refStep p.drive ∧
      dout refStep (p.bind fun r => PB.done (Except.ok (ε := PyErr) r)).drive = Except.ok (dout refStep p.drive) := by
    intro p
    rw [PB.dlog_bind, PB.dout_bind]
    exact ⟨List.append_nil _, rfl⟩
  have hA : ∀ (K : Step → PB SNum) (v : View),
      dlog refStep ((PB.ask v K).bind fun r => PB.done (Except.ok (ε := PyErr) r)).drive =
        [(v, refStep v)] :: dlog refStep ((K (refStep v)).bind fun r => PB.done (Except.ok (ε := PyErr) r)).drive ∧
      dout refStep ((PB.ask v K).bind fun r => PB.done (Except.ok (ε := PyErr) r)).drive =
        dout refStep ((K (refStep v)).bind fun r => PB.done (Except.ok (ε := PyErr) r)).drive := fun _ _ => ⟨rfl, rfl⟩
  refine ⟨?_, ?_⟩
  · have hd : ∀ x : SNum, dlog refStep (PB.done x).drive = [] := fun _ => rfl
    rw [PB.dlog_bind, hfin, List.append_nil, (hA _ _).1, (hok _).1, c1, hd, List.append_nil]
  · rw [PB.dout_bind, (hA _ _).2, (hok _).2, c2]
    rfl

end Sketchpad
