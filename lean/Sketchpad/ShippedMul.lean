/-
  Sketchpad.ShippedMul — the parallel product as shipped (`mulParB`: carry-select partial rows in
  one batch, then `_sum_tree`'s levels of carry-select pair additions) computes `x · y`, for every
  stepper exact on `V_MUL` and `V_ADD` (issue 21).

  Parallel.lean's `par_mul_exact` proves the value in its own model of the tree (`treeLevel`:
  each pair added from column 0 with the partner row shifted by explicit zeros).  Python adds a
  pair `(r₁, s₁)`, `(r₂, s₂)` by a scan of `r₁[s₂−s₁:]` and `r₂`, keeping `r₁`'s low cells
  (`pairScan`, `pairSum`); that is `r₁ + r₂·10^(s₂−s₁)` only when `r₁` has at least `s₂ − s₁`
  cells.  Here: that invariant (`Cov`: every row at least as long as the gap to the next row's
  shift) holds for the partial rows (each has a cell per digit of `x`) and is kept by every level
  (a sum row is at least as long as its low cells plus its partner), so each level keeps the
  rows' total (`levelB_ok`), and the tree's last row denotes `x · y` (`mulParB_out`).
-/
module

public import Sketchpad.ShippedPar

@[expose] public noncomputable section

set_option autoImplicit false

namespace Sketchpad

open Prog Drive

variable {α : Type}

/-! ### Lengths of reference rows -/

/-- The reference addition writes at least a cell per column of its longer operand. -/
theorem add_len_ge (n : Nat) : ∀ (xs ys : List Cell) (c : Cell),
    Digits xs → Digits ys → c ∈ carries → xs.length + 2 ≤ n → ys.length + 2 ≤ n →
    max xs.length ys.length ≤ (rowOf (trace refStep n .ADD xs ys c)).length := by
  induction n with
  | zero => intro xs ys c _ _ _ hnx _; omega
  | succ n ih =>
    intro xs ys c hx hy hc hnx hny
    by_cases hxy : xs = [] ∧ ys = []
    · obtain ⟨rfl, rfl⟩ := hxy
      have e : max ([] : List Cell).length ([] : List Cell).length = 0 := rfl
      rw [e]
      exact Nat.zero_le _
    · have hne : ¬(hd xs = .blank ∧ hd ys = .blank ∧ c = .blank) := by
        intro ⟨h1, h2, _⟩
        exact hxy ⟨eq_nil_of_hd_blank hx h1, eq_nil_of_hd_blank hy h2⟩
      have hcol := add_col (hd xs) (hd_mem_db hx) (hd ys) (hd_mem_db hy) c hc hne
      have ha9 := Cell.val_le (hd xs)
      have hb9 := Cell.val_le (hd ys)
      have hc1 := carries_val_le hc
      have hlx := len_tl xs
      have hly := len_tl ys
      have hpos : 1 ≤ xs.length ∨ 1 ≤ ys.length := by
        cases xs with
        | nil =>
          cases ys with
          | nil => exact (hxy ⟨rfl, rfl⟩).elim
          | cons y ys' => right; show 1 ≤ ys'.length + 1; omega
        | cons x xs' => left; show 1 ≤ xs'.length + 1; omega
      have ih' := ih (tl xs) (tl ys)
        (Cell.carry (((hd xs).val + (hd ys).val + c.val) / 10))
        (digits_tl hx) (digits_tl hy) (carry_mem_carries _ (by omega)) (by omega) (by omega)
      rw [trace_step refStep n .ADD xs ys c ⟨.ADD, hd xs, hd ys, c⟩ _ .ADD (tl xs) (tl ys)
        (Cell.carry (((hd xs).val + (hd ys).val + c.val) / 10)) rfl hcol rfl rfl rfl rfl rfl,
        rowOf_digit_mod]
      have m1 := Nat.le_max_left (tl xs).length (tl ys).length
      have m2 := Nat.le_max_right (tl xs).length (tl ys).length
      have e : (Cell.digit (((hd xs).val + (hd ys).val + c.val) % 10) ::
          rowOf (trace refStep n .ADD (tl xs) (tl ys) (Cell.carry (((hd xs).val + (hd ys).val + c.val) / 10)))).length =
          (rowOf (trace refStep n .ADD (tl xs) (tl ys) (Cell.carry (((hd xs).val + (hd ys).val + c.val) / 10)))).length + 1 := rfl
      rw [e]
      refine Nat.max_le.mpr ⟨?_, ?_⟩ <;> omega

theorem add_trace_len (xs ys : List Cell) (hx : Digits xs) (hy : Digits ys) :
    max xs.length ys.length ≤ (rowOf (addTrace refStep xs ys)).length :=
  add_len_ge (max xs.length ys.length + 3) xs ys .blank hx hy (by decide)
    (by have := Nat.le_max_left xs.length ys.length; omega)
    (by have := Nat.le_max_right xs.length ys.length; omega)

/-! ### (i) The shipped pair addition -/

/-- **A pair of the sum tree, as Python adds it** (`add_rows(r₁, shifted r₂, start = s₂ − s₁)`),
for a stepper exact on `V_ADD`: the carry-select scan is the reference addition of `r₁[s₂−s₁:]`
and `r₂`, and when `r₁` has at least `s₂ − s₁` cells the sum row denotes `r₁ + r₂·10^(s₂−s₁)`,
is a digit row of at least `s₂ − s₁ + |r₂|` cells, at `r₁`'s shift. -/
theorem pair_ok (f : Stepper) (hadd : ∀ v ∈ V_ADD, f v = refStep v) (p q : List Cell × Nat)
    (hp : Digits p.1) (hq : Digits q.1) (hg : q.2 - p.2 ≤ p.1.length) :
    followScan f (pairScan (p, q)) = addTrace refStep (p.1.drop (q.2 - p.2)) q.1 ∧
      rowVal (pairSum (p, q) (followScan f (pairScan (p, q)))).1 = rowVal p.1 + 10 ^ (q.2 - p.2) * rowVal q.1 ∧
      Digits (pairSum (p, q) (followScan f (pairScan (p, q)))).1 ∧
      q.2 - p.2 + q.1.length ≤ (pairSum (p, q) (followScan f (pairScan (p, q)))).1.length ∧
      (pairSum (p, q) (followScan f (pairScan (p, q)))).2 = p.2 ∧
      p.1.length ≤ (pairSum (p, q) (followScan f (pairScan (p, q)))).1.length := by
  have hdrop : Digits (p.1.drop (q.2 - p.2)) := digits_drop _ hp
  obtain ⟨e1, e2⟩ := sel_add_exact f hadd (p.1.drop (q.2 - p.2)) q.1 hdrop hq
  have hf : followScan f (pairScan (p, q)) = addTrace refStep (p.1.drop (q.2 - p.2)) q.1 := by
    rw [followScan_eq]
    show selRowsTrace f .ADD (p.1.drop (q.2 - p.2)) q.1 = _
    rw [e1, e2]
  obtain ⟨av, adg, _⟩ := add_correct (p.1.drop (q.2 - p.2)) q.1 hdrop hq
  have alen := add_trace_len (p.1.drop (q.2 - p.2)) q.1 hdrop hq
  have htl : (p.1.take (q.2 - p.2)).length = q.2 - p.2 := List.length_take_of_le hg
  have es : pairSum (p, q) (followScan f (pairScan (p, q))) =
      (p.1.take (q.2 - p.2) ++ rowOf (addTrace refStep (p.1.drop (q.2 - p.2)) q.1), p.2) := by
    rw [hf]; rfl
  rw [es]
  refine ⟨hf, ?_, digits_append (digits_take _ hp) adg, ?_, rfl, ?_⟩
  · show rowVal (p.1.take (q.2 - p.2) ++ rowOf (addTrace refStep (p.1.drop (q.2 - p.2)) q.1)) = _
    rw [rowVal_app, av, htl, rowVal_take_drop p.1 (q.2 - p.2), htl, Nat.mul_add, Nat.add_assoc]
  · show q.2 - p.2 + q.1.length ≤ (p.1.take (q.2 - p.2) ++ rowOf (addTrace refStep (p.1.drop (q.2 - p.2)) q.1)).length
    rw [List.length_append, htl]
    have := Nat.le_max_right (p.1.drop (q.2 - p.2)).length q.1.length
    omega
  · show p.1.length ≤ (p.1.take (q.2 - p.2) ++ rowOf (addTrace refStep (p.1.drop (q.2 - p.2)) q.1)).length
    rw [List.length_append, htl]
    have := Nat.le_max_left (p.1.drop (q.2 - p.2)).length q.1.length
    have hd : (p.1.drop (q.2 - p.2)).length = p.1.length - (q.2 - p.2) := List.length_drop
    omega

/-! ### (iii) The levels of `_sum_tree` -/

/-- One level as the shipped tree computes it under the stepper `f`: the pairs' sum rows, then
the leftover row. -/
def levelB (f : Stepper) (items : List (List Cell × Nat)) : List (List Cell × Nat) :=
  List.zipWith pairSum (pairsOfItems items) (((pairsOfItems items).map pairScan).map (followScan f)) ++
    leftover items

theorem levelB_nil (f : Stepper) : levelB f [] = [] := rfl

theorem levelB_one (f : Stepper) (p : List Cell × Nat) : levelB f [p] = [p] := rfl

theorem levelB_cons2 (f : Stepper) (p q : List Cell × Nat) (rest : List (List Cell × Nat)) :
    levelB f (p :: q :: rest) = pairSum (p, q) (followScan f (pairScan (p, q))) :: levelB f rest := rfl

/-- The shift of a level's first row. -/
def headSh : List (List Cell × Nat) → Option Nat
  | [] => none
  | p :: _ => some p.2

/-- Every row at least as long as the gap to the next row's shift. -/
def Cov : List (List Cell × Nat) → Prop
  | [] => True
  | p :: t => (∀ s, headSh t = some s → s - p.2 ≤ p.1.length) ∧ Cov t

theorem monoFrom_head {t : Nat} : ∀ (l : List (List Cell × Nat)) (s : Nat), MonoFrom t l → headSh l = some s → t ≤ s
  | [], s, _, h => by
    have h' : (none : Option Nat) = some s := h
    cases h'
  | p :: _, s, hm, h => by
    have e : p.2 = s := Option.some.inj h
    rw [← e]
    exact hm.1

/-- **A level keeps the rows' total**, and the invariants the next level needs. -/
theorem levelB_ok (f : Stepper) (hadd : ∀ v ∈ V_ADD, f v = refStep v) :
    ∀ (l : List (List Cell × Nat)) (s : Nat), MonoFrom s l → AllDig l → Cov l →
      treeVal (levelB f l) = treeVal l ∧ MonoFrom s (levelB f l) ∧ AllDig (levelB f l) ∧
        Cov (levelB f l) ∧ (levelB f l).length ≤ l.length ∧ headSh (levelB f l) = headSh l
  | [], _, hm, hd, hc => ⟨rfl, hm, hd, hc, Nat.le_refl _, rfl⟩
  | [_], _, hm, hd, hc => ⟨rfl, hm, hd, hc, Nat.le_refl _, rfl⟩
  | p :: q :: rest, s, hm, hdg, hc => by
    obtain ⟨hsp, hpq, hrest⟩ := hm
    obtain ⟨hdp, hdq, hdr⟩ := hdg
    obtain ⟨hcp, hcq, hcr⟩ := hc
    obtain ⟨iv, im, idg, ic, il, ih⟩ := levelB_ok f hadd rest q.2 hrest hdr hcr
    obtain ⟨_, pv, pdg, plen, psh, _⟩ := pair_ok f hadd p q hdp hdq (hcp q.2 rfl)
    rw [levelB_cons2]
    refine ⟨?_, ⟨?_, ?_⟩, ⟨pdg, idg⟩, ⟨?_, ic⟩, ?_, ?_⟩
    · show rowVal (pairSum (p, q) (followScan f (pairScan (p, q)))).1 *
          10 ^ (pairSum (p, q) (followScan f (pairScan (p, q)))).2 + treeVal (levelB f rest) =
        rowVal p.1 * 10 ^ p.2 + (rowVal q.1 * 10 ^ q.2 + treeVal rest)
      have hpow : 10 ^ (q.2 - p.2) * 10 ^ p.2 = 10 ^ q.2 := by
        rw [← Nat.pow_add, Nat.sub_add_cancel hpq]
      rw [psh, iv, pv, Nat.add_mul, Nat.mul_comm (10 ^ (q.2 - p.2)) (rowVal q.1),
        Nat.mul_assoc (rowVal q.1), hpow, Nat.add_assoc]
    · rw [psh]; exact hsp
    · rw [psh]; exact monoFrom_weaken hpq _ im
    · intro s' hs'
      rw [ih] at hs'
      have h1 := hcq s' hs'
      have h2 := monoFrom_head rest s' hrest hs'
      rw [psh]
      omega
    · show (levelB f rest).length + 1 ≤ rest.length + 1 + 1
      omega
    · show some (pairSum (p, q) (followScan f (pairScan (p, q)))).2 = some p.2
      rw [psh]

/-- **The shipped sum tree's value** (`_sum_tree`, levels of carry-select pair additions), for a
stepper exact on `V_ADD`: the procedure goes on with a digit row denoting the rows' total. -/
theorem sumTreeB_out (f : Stepper) (hadd : ∀ v ∈ V_ADD, f v = refStep v) (K : List Cell → PB α) :
    ∀ (n : Nat) (p : List Cell × Nat) (t : List (List Cell × Nat)),
      (p :: t).length ≤ n + 1 → MonoFrom p.2 t → AllDig (p :: t) → Cov (p :: t) →
        ∃ R, rowVal R * 10 ^ p.2 = treeVal (p :: t) ∧ Digits R ∧ p.1.length ≤ R.length ∧
          dout f (sumTreeB K n (p :: t)).drive = dout f (K R).drive := by
  intro n
  induction n with
  | zero =>
    intro p t hl _ hdg _
    cases t with
    | nil => exact ⟨p.1, (Nat.add_zero _).symm, hdg.1, Nat.le_refl _, rfl⟩
    | cons q rest =>
      have : (p :: q :: rest).length = rest.length + 1 + 1 := rfl
      omega
  | succ n ih =>
    intro p t hl hm hdg hc
    cases t with
    | nil => exact ⟨p.1, (Nat.add_zero _).symm, hdg.1, Nat.le_refl _, rfl⟩
    | cons q rest =>
      obtain ⟨iv, im, idg, ic, il, _⟩ := levelB_ok f hadd (p :: q :: rest) p.2 ⟨Nat.le_refl _, hm⟩ hdg hc
      have e : dout f (sumTreeB K (n + 1) (p :: q :: rest)).drive =
          dout f (sumTreeB K n (levelB f (p :: q :: rest))).drive := rfl
      rw [levelB_cons2] at iv im idg ic il
      have psh : (pairSum (p, q) (followScan f (pairScan (p, q)))).2 = p.2 := by
        rw [(pair_ok f hadd p q hdg.1 hdg.2.1 (hc.1 q.2 rfl)).2.2.2.2.1]
      have plen := (pair_ok f hadd p q hdg.1 hdg.2.1 (hc.1 q.2 rfl)).2.2.2.2.2
      obtain ⟨_, hmr⟩ := hm
      obtain ⟨_, _, hdr⟩ := hdg
      obtain ⟨_, _, hcr⟩ := hc
      obtain ⟨_, _, _, _, il2, _⟩ := levelB_ok f hadd rest q.2 hmr hdr hcr
      have hl' : (pairSum (p, q) (followScan f (pairScan (p, q))) :: levelB f rest).length ≤ n + 1 := by
        have h1 : (pairSum (p, q) (followScan f (pairScan (p, q))) :: levelB f rest).length =
            (levelB f rest).length + 1 := rfl
        have h2 : (p :: q :: rest).length = rest.length + 1 + 1 := rfl
        omega
      obtain ⟨R, rv, rd, rl, ro⟩ := ih _ _ hl' im.2 idg ic
      rw [psh] at rv
      refine ⟨R, rv.trans iv, rd, Nat.le_trans plen rl, ?_⟩
      rw [e, levelB_cons2]
      exact ro

/-! ### (ii) The partial rows, and the whole product -/

theorem mulStates_sub : ∀ d ∈ digitCells, ∀ st ∈ mulStates d, st ∈ mulStatesPy d := by
  decide +kernel

/-- **A shipped partial row** (`_partial_row` in the parallel mode: Python's family
`MUL_CARRIES[d]` in its order, its limit, the multiplier digit in every column), for a stepper
exact on `V_MUL`, is the reference partial row. -/
theorem followScan_mulRow (f : Stepper) (hmul : ∀ v ∈ V_MUL, f v = refStep v)
    (xs : List Cell) (d : Cell) (hx : Digits xs) (hd : d.isDigit = true) :
    followScan f (mulRowScan xs d) = mulRowTrace refStep xs d := by
  have ep : List.replicate (xs.length + 3) d = List.replicate (xs.length + 2) d ++ [d] :=
    replicate_succ_right d (xs.length + 2)
  have epadf : trace f (xs.length + 2) .MUL xs (List.replicate (xs.length + 2) d ++ [d]) .blank =
      trace f (xs.length + 2) .MUL xs (List.replicate (xs.length + 2) d) .blank :=
    trace_pad f (xs.length + 2) .MUL xs _ .blank [d] (Nat.le_of_eq (len_replicate d (xs.length + 2)).symm)
  have epad : trace refStep (xs.length + 2) .MUL xs (List.replicate (xs.length + 2) d ++ [d]) .blank =
      trace refStep (xs.length + 2) .MUL xs (List.replicate (xs.length + 2) d) .blank :=
    trace_pad refStep (xs.length + 2) .MUL xs _ .blank [d]
      (Nat.le_of_eq (len_replicate d (xs.length + 2)).symm)
  have e2 : trace f (xs.length + 2) .MUL xs (List.replicate (xs.length + 2) d) .blank =
      trace refStep (xs.length + 2) .MUL xs (List.replicate (xs.length + 2) d) .blank :=
    trace_congr f refStep _ .MUL xs _ .blank
      (fun p hp => hmul p.1 (mul_sound d hd _ xs .blank hx (by decide) (mulOK_blank d) p hp))
  have hhalt := (mul_row_aux d hd (xs.length + 2) xs .blank hx (by decide) (mulOK_blank d)
    (Nat.le_refl _)).2.2
  have hh : (lastNext (trace refStep (xs.length + 2) .MUL xs
      (List.replicate (xs.length + 3) d) .blank) .MUL).isScan = false := by
    rw [ep, epad, hhalt]
    try rfl
  have e3 := trace_extend1 refStep xs.length .MUL xs (List.replicate (xs.length + 3) d) .blank hh
  have hseq : out f (scanP (xs.length + 2) .MUL xs (List.replicate (xs.length + 3) d) .blank true) =
      trace refStep (xs.length + 2) .MUL xs (List.replicate (xs.length + 2) d) .blank := by
    rw [scanP_trace, ep, epadf, e2]
  have hsel : selectScan f true (mulStatesPy d) (xs.length + 2) .MUL xs (List.replicate (xs.length + 3) d) .blank =
      out f (scanP (xs.length + 2) .MUL xs (List.replicate (xs.length + 3) d) .blank true) := by
    refine select_scan_eq f true (mulStatesPy d) _ .MUL xs _ .blank ?_
    intro p hp hs
    rw [hseq] at hp
    exact mulStates_sub d (Cell.mem_digitCells_of_isDigit d hd) _
      (mul_family d hd _ xs .blank hx (by decide) (mulOK_blank d) p hp hs)
  rw [followScan_eq]
  show selectScan f true (mulStatesPy d) (xs.length + 2) .MUL xs (List.replicate (xs.length + 3) d) .blank = _
  rw [hsel, hseq]
  show trace refStep (xs.length + 2) .MUL xs (List.replicate (xs.length + 2) d) .blank =
    trace refStep (xs.length + 3) .MUL xs (List.replicate (xs.length + 3) d) .blank
  rw [e3, ep, epad]

theorem mulRows_map (f : Stepper) (hmul : ∀ v ∈ V_MUL, f v = refStep v) (xs : List Cell) (hx : Digits xs) :
    ∀ ys : List Cell, Digits ys → (ys.map (mulRowScan xs)).map (followScan f) = ys.map (mulRowTrace refStep xs)
  | [], _ => rfl
  | d :: ds, hy => by
    obtain ⟨hd, hds⟩ := digits_cons hy
    show followScan f (mulRowScan xs d) :: (ds.map (mulRowScan xs)).map (followScan f) =
      mulRowTrace refStep xs d :: ds.map (mulRowTrace refStep xs)
    rw [followScan_mulRow f hmul xs d hx hd, mulRows_map f hmul xs hx ds hds]

theorem withCols_eq (row : Cell → List Cell) : ∀ (j : Nat) (ds : List Cell),
    withCols j (ds.map row) = partials row j ds
  | _, [] => rfl
  | j, d :: ds => by
    show (row d, j) :: withCols (j + 1) (ds.map row) = (row d, j) :: partials row (j + 1) ds
    rw [withCols_eq row (j + 1) ds]

theorem partials_cov (row : Cell → List Cell) (hrow : ∀ d, d.isDigit = true → 1 ≤ (row d).length) :
    ∀ (j : Nat) (ds : List Cell), Digits ds → Cov (partials row j ds)
  | _, [], _ => trivial
  | j, d :: ds, hds => by
    obtain ⟨hd, hds'⟩ := digits_cons hds
    refine ⟨?_, partials_cov row hrow (j + 1) ds hds'⟩
    intro s hs
    cases ds with
    | nil =>
      have h' : (none : Option Nat) = some s := hs
      cases h'
    | cons d' ds'' =>
      have e : j + 1 = s := Option.some.inj hs
      have := hrow d hd
      show s - j ≤ (row d).length
      omega

/-- **The parallel product as shipped** (`product_rows` with `PARALLEL`: the partial rows
carry-select in one batch, then `_sum_tree`), for every stepper exact on `V_MUL` and `V_ADD`:
it goes on with a digit row denoting `x · y` (non-empty rows, as Python's operands). -/
theorem mulParB_out (f : Stepper) (hmul : ∀ v ∈ V_MUL, f v = refStep v) (hadd : ∀ v ∈ V_ADD, f v = refStep v)
    (xs ys : List Cell) (hx : Digits xs) (hy : Digits ys) (hxne : xs ≠ []) (hyne : ys ≠ [])
    (K : List Cell → PB α) :
    ∃ R, rowVal R = rowVal xs * rowVal ys ∧ Digits R ∧ R ≠ [] ∧
      dout f (mulParB xs ys K).drive = dout f (K R).drive := by
  have e : dout f (mulParB xs ys K).drive =
      dout f (sumTreeB K ys.length (withCols 0 (((ys.map (mulRowScan xs)).map (followScan f)).map rowOf))).drive := rfl
  rw [mulRows_map f hmul xs hx ys hy, List.map_map] at e
  have hw : withCols 0 (ys.map (rowOf ∘ mulRowTrace refStep xs)) =
      partials (fun d => rowOf (mulRowTrace refStep xs d)) 0 ys := withCols_eq _ 0 ys
  rw [hw] at e
  have hR : ∀ d, d.isDigit = true → rowVal (rowOf (mulRowTrace refStep xs d)) = rowVal xs * d.val ∧
      Digits (rowOf (mulRowTrace refStep xs d)) := by
    intro d hd
    obtain ⟨v, dg, _⟩ := mul_row_correct xs d hx hd
    exact ⟨v, dg⟩
  obtain ⟨pv, pdg, pm⟩ := partials_ok (fun d => rowOf (mulRowTrace refStep xs d)) (rowVal xs) hR ys 0 hy
  have pc := partials_cov (fun d => rowOf (mulRowTrace refStep xs d))
    (fun d hd => by
      show 1 ≤ (rowOf (mulRowTrace refStep xs d)).length
      have h1 := (mul_row_len xs d hx hd).1
      have h2 : xs.length ≠ 0 := fun h => hxne (List.eq_nil_of_length_eq_zero h)
      omega) 0 ys hy
  cases ys with
  | nil => exact absurd rfl hyne
  | cons d ds =>
    have ep : partials (fun d => rowOf (mulRowTrace refStep xs d)) 0 (d :: ds) =
        (rowOf (mulRowTrace refStep xs d), 0) :: partials (fun d => rowOf (mulRowTrace refStep xs d)) 1 ds := rfl
    rw [ep] at pv pdg pm pc e
    have hl : ((rowOf (mulRowTrace refStep xs d), 0) ::
        partials (fun d => rowOf (mulRowTrace refStep xs d)) 1 ds).length ≤ (d :: ds).length + 1 := by
      have h1 : ((rowOf (mulRowTrace refStep xs d), 0) ::
          partials (fun d => rowOf (mulRowTrace refStep xs d)) 1 ds).length =
          (partials (fun d => rowOf (mulRowTrace refStep xs d)) 1 ds).length + 1 := rfl
      have h2 : (d :: ds).length = ds.length + 1 := rfl
      rw [h1, h2, partials_length]
      omega
    obtain ⟨R, rv, rd, rl, ro⟩ := sumTreeB_out f hadd K (d :: ds).length _ _ hl pm.2 pdg pc
    have hRne : R ≠ [] := by
      intro h0
      rw [h0] at rl
      have h1 := (mul_row_len xs d hx (digits_cons hy).1).1
      have h2 : xs.length ≠ 0 := fun h => hxne (List.eq_nil_of_length_eq_zero h)
      have h3 : ([] : List Cell).length = 0 := rfl
      have h4 : (rowOf (mulRowTrace refStep xs d), 0).1 = rowOf (mulRowTrace refStep xs d) := rfl
      rw [h4, h3] at rl
      omega
    refine ⟨R, ?_, rd, hRne, e.trans ro⟩
    have rv' : rowVal R * 10 ^ 0 = treeVal ((rowOf (mulRowTrace refStep xs d), 0) ::
        partials (fun d => rowOf (mulRowTrace refStep xs d)) 1 ds) := rv
    rw [Nat.pow_zero, Nat.mul_one] at rv'
    rw [rv', pv, Nat.pow_zero, Nat.one_mul]

end Sketchpad
