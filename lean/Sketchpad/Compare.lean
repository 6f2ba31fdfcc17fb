/-
  Sketchpad.Compare — comparison (`CMP=`/`CMP<`/`CMP>` scans, `compare_rows`), the zero test
  (`ZT`, `zero_test`) and the increments (`INC`: x + 1; `ADD2`: x + 2, `increment`), as
  programs of the driver (Sketchpad/Driver.lean) over an arbitrary stepper.

  For each: correctness of the reference (the flag is the comparison of the two rows' values;
  `Z` exactly for a zero row; the row written denotes x + 1, x + 2), and the reduction: a stepper
  runs the procedure exactly as the reference on every input of every length iff it agrees with
  the reference on the procedure's views (`V_CMPEQ ++ V_CMPLT ++ V_CMPGT`, `V_ZT`, `V_INC`,
  `V_ADD2 ++ V_INC`).  Closure from the structure of the generated `step<OP>` (small decisions
  over the cell grid), witnesses generated (Sketchpad/TableProc.lean) and checked by decision.
-/
module

public import Sketchpad.Driver
public import Sketchpad.Facts
public import Sketchpad.TableProc

@[expose] public noncomputable section

set_option autoImplicit false

set_option maxRecDepth 100000
set_option maxHeartbeats 0

namespace Sketchpad

open Prog

/-! ### Comparison: the finite facts -/

/-- The states of a comparison scan: equal so far, less so far, greater so far. -/
def cmpOps : List Op := [.CMPEQ, .CMPLT, .CMPGT]

/-- The symbol a comparison state writes when the scan halts. -/
def cmpSym : Op → Cell
  | .CMPEQ => .equal
  | .CMPLT => .less
  | .CMPGT => .greater
  | _ => .blank

/-- The next state: a higher column decides over the lower ones. -/
def cmpNext (op : Op) (x y : Nat) : Op := if x = y then op else if x < y then .CMPLT else .CMPGT

/-- The flag a scan in state `op` ends with, on rows of values `x`, `y` (the higher columns'
comparison if they differ, else the state's). -/
def cmpRes (op : Op) (x y : Nat) : Cell :=
  if x < y then .less else if y < x then .greater else cmpSym op

/-- `<`, `=` or `>`: the comparison of two numbers as a flag cell. -/
def cmpCell (x y : Nat) : Cell := if x < y then .less else if y < x then .greater else .equal

/-- The comparison views of V. -/
def V_CMP : List View := V_CMPEQ ++ V_CMPLT ++ V_CMPGT

def cmpGrid : List View :=
  cmpOps.flatMap fun op => db.flatMap fun a => db.map fun b => ⟨op, a, b, .blank⟩

theorem mem_cmpGrid {op : Op} {a b : Cell} (hop : op ∈ cmpOps) (ha : a ∈ db) (hb : b ∈ db) :
    (⟨op, a, b, .blank⟩ : View) ∈ cmpGrid :=
  List.mem_flatMap.mpr ⟨op, hop, List.mem_flatMap.mpr ⟨a, ha, List.mem_map.mpr ⟨b, hb, rfl⟩⟩⟩

/-- The generated comparison views are exactly the grid (363 = 3 · 11 · 11), in its order. -/
theorem V_CMP_grid : V_CMP = cmpGrid := by decide +kernel

theorem cmp_halt : ∀ op ∈ cmpOps, refStep ⟨op, .blank, .blank, .blank⟩ = ⟨cmpSym op, .blank, .HALT⟩ := by
  decide +kernel

/-- The reference comparison step: stay in the state if the digits are equal, else the digits
decide. -/
theorem cmp_col : ∀ op ∈ cmpOps, ∀ a ∈ db, ∀ b ∈ db, ¬(a = .blank ∧ b = .blank) →
    refStep ⟨op, a, b, .blank⟩ = ⟨.blank, .blank, cmpNext op a.val b.val⟩ := by
  decide +kernel

theorem cmpNext_mem (op : Op) (hop : op ∈ cmpOps) (x y : Nat) : cmpNext op x y ∈ cmpOps := by
  unfold cmpNext
  by_cases h1 : x = y
  · rw [if_pos h1]; exact hop
  · rw [if_neg h1]
    by_cases h2 : x < y
    · rw [if_pos h2]; decide
    · rw [if_neg h2]; decide

theorem cmpOps_isScan : ∀ op ∈ cmpOps, op.isScan = true := by decide

theorem cmpRes_step (op : Op) (a b X Y : Nat) (ha : a ≤ 9) (hb : b ≤ 9) :
    cmpRes (cmpNext op a b) X Y = cmpRes op (a + 10 * X) (b + 10 * Y) := by
  unfold cmpRes cmpNext
  by_cases h1 : X < Y
  · rw [if_pos h1, if_pos (show a + 10 * X < b + 10 * Y by omega)]
  · rw [if_neg h1]
    by_cases h2 : Y < X
    · rw [if_pos h2, if_neg (show ¬ (a + 10 * X < b + 10 * Y) by omega),
        if_pos (show b + 10 * Y < a + 10 * X by omega)]
    · rw [if_neg h2]
      by_cases h3 : a = b
      · rw [if_pos h3, if_neg (show ¬ (a + 10 * X < b + 10 * Y) by omega),
          if_neg (show ¬ (b + 10 * Y < a + 10 * X) by omega)]
      · by_cases h4 : a < b
        · rw [if_neg h3, if_pos h4, if_pos (show a + 10 * X < b + 10 * Y by omega)]
          all_goals rfl
        · rw [if_neg h3, if_neg h4, if_neg (show ¬ (a + 10 * X < b + 10 * Y) by omega),
            if_pos (show b + 10 * Y < a + 10 * X by omega)]
          all_goals rfl

/-! ### Comparison: closure, correctness, reduction -/

theorem compareP_log (f : Stepper) (xs ys : List Cell) :
    log f (compareP xs ys) = log f (scanP (max xs.length ys.length + 3) .CMPEQ xs ys .blank false) := by
  unfold compareP
  rw [log_bind, log_done, List.append_nil]

theorem compareP_out (f : Stepper) (xs ys : List Cell) :
    out f (compareP xs ys) =
      lastSym (out f (scanP (max xs.length ys.length + 3) .CMPEQ xs ys .blank false)) := by
  unfold compareP
  rw [out_bind]
  rfl

/-- Every view of a comparison scan of digit rows is a comparison view of V. -/
theorem cmp_scan_closed (n : Nat) (op : Op) (xs ys : List Cell) (hop : op ∈ cmpOps)
    (hx : Digits xs) (hy : Digits ys) :
    ∀ x ∈ log refStep (scanP n op xs ys .blank false), x.1 ∈ V_CMP := by
  refine scanP_inv refStep false (fun v => v ∈ V_CMP)
    (fun _ o xs' ys' c' => o ∈ cmpOps ∧ Digits xs' ∧ Digits ys' ∧ c' = .blank) ?_ ?_
    n op xs ys .blank ⟨hop, hx, hy, rfl⟩
  · intro m o xs' ys' c' hI
    obtain ⟨ho, hx', hy', hc'⟩ := hI
    subst hc'
    show (⟨o, hd xs', hd ys', .blank⟩ : View) ∈ V_CMP
    rw [V_CMP_grid]
    exact mem_cmpGrid ho (hd_mem_db hx') (hd_mem_db hy')
  · intro m o xs' ys' c' hI hs
    obtain ⟨ho, hx', hy', hc'⟩ := hI
    subst hc'
    refine ⟨?_, digits_tl hx', digits_tl hy', rfl⟩
    by_cases hb : hd xs' = .blank ∧ hd ys' = .blank
    · have h2 : (Step.mk (cmpSym o) Cell.blank Op.HALT).next.isScan = false := rfl
      rw [hb.1, hb.2, cmp_halt o ho, h2] at hs
      exact absurd hs (by decide)
    · rw [cmp_col o ho _ (hd_mem_db hx') _ (hd_mem_db hy') hb]
      exact cmpNext_mem o ho _ _

theorem compare_closed (xs ys : List Cell) (hx : Digits xs) (hy : Digits ys) :
    ∀ x ∈ log refStep (compareP xs ys), x.1 ∈ V_CMP := by
  rw [compareP_log]
  exact cmp_scan_closed _ .CMPEQ xs ys (by decide) hx hy

theorem one_le_len_of_ne (xs ys : List Cell) (h : ¬(hd xs = .blank ∧ hd ys = .blank)) :
    1 ≤ xs.length ∨ 1 ≤ ys.length := by
  cases xs with
  | nil =>
    cases ys with
    | nil => exact (h ⟨rfl, rfl⟩).elim
    | cons y ys' => right; show 1 ≤ ys'.length + 1; omega
  | cons x xs' => left; show 1 ≤ xs'.length + 1; omega

theorem cmp_correct_aux (n : Nat) : ∀ (op : Op) (xs ys : List Cell), op ∈ cmpOps →
    Digits xs → Digits ys → xs.length + 1 ≤ n → ys.length + 1 ≤ n →
    lastSym (out refStep (scanP n op xs ys .blank false)) = cmpRes op (rowVal xs) (rowVal ys) := by
  induction n with
  | zero => intro op xs ys _ _ _ h _; omega
  | succ n ih =>
    intro op xs ys hop hx hy hnx hny
    by_cases hb : hd xs = .blank ∧ hd ys = .blank
    · have ex := eq_nil_of_hd_blank hx hb.1
      have ey := eq_nil_of_hd_blank hy hb.2
      subst ex
      subst ey
      rw [(scanP_last refStep n op [] [] .blank false ⟨op, .blank, .blank, .blank⟩
        ⟨cmpSym op, .blank, .HALT⟩ rfl (cmp_halt op hop) rfl).1, lastSym_single]
      show cmpSym op = cmpRes op 0 0
      unfold cmpRes
      rw [if_neg (Nat.lt_irrefl 0), if_neg (Nat.lt_irrefl 0)]
    · have hcol := cmp_col op hop (hd xs) (hd_mem_db hx) (hd ys) (hd_mem_db hy) hb
      have hlx := len_tl xs
      have hly := len_tl ys
      have hpos := one_le_len_of_ne xs ys hb
      obtain ⟨m, rfl⟩ : ∃ m, n = m + 1 := ⟨n - 1, by omega⟩
      rw [(scanP_step refStep (m + 1) op xs ys .blank false ⟨op, hd xs, hd ys, .blank⟩
        ⟨.blank, .blank, cmpNext op (hd xs).val (hd ys).val⟩ (cmpNext op (hd xs).val (hd ys).val)
        .blank rfl hcol rfl (cmpOps_isScan _ (cmpNext_mem op hop _ _)) rfl).1,
        lastSym_cons _ _ (scanP_ne_nil refStep m _ _ _ _ _),
        ih _ (tl xs) (tl ys) (cmpNext_mem op hop _ _) (digits_tl hx) (digits_tl hy)
          (by omega) (by omega),
        rowVal_hd_tl xs, rowVal_hd_tl ys]
      exact cmpRes_step op _ _ _ _ (Cell.val_le _) (Cell.val_le _)

/-- **Correctness (comparison).** For digit rows of any lengths, the reference comparison
writes `<`, `=` or `>` as the value of `xs` is below, equal to or above that of `ys`. -/
theorem compare_correct (xs ys : List Cell) (hx : Digits xs) (hy : Digits ys) :
    out refStep (compareP xs ys) = cmpCell (rowVal xs) (rowVal ys) := by
  rw [compareP_out, cmp_correct_aux _ .CMPEQ xs ys (by decide) hx hy
    (by have := Nat.le_max_left xs.length ys.length; omega)
    (by have := Nat.le_max_right xs.length ys.length; omega)]
  rfl

theorem W_CMP_fst : W_CMP.map Prod.fst = V_CMP := by decide +kernel

theorem W_CMP_ok : ∀ w ∈ W_CMP, allDigits w.2.1 = true ∧ allDigits w.2.2 = true ∧
    w.1 ∈ Prog.views refStep (compareP w.2.1 w.2.2) := by
  decide +kernel

/-- **Reduction (comparison).** A stepper runs every comparison of digit rows of every length
exactly as the reference iff it agrees with the reference on the 363 comparison views of V. -/
theorem reduction_compare (f : Stepper) :
    (∀ v ∈ V_CMP, f v = refStep v) ↔
      ∀ xs ys, Digits xs → Digits ys → steps f (compareP xs ys) = steps refStep (compareP xs ys) := by
  have h := reduction_of (fun i : List Cell × List Cell => compareP i.1 i.2)
    (fun i => Digits i.1 ∧ Digits i.2) (fun v => v ∈ V_CMP)
    (fun i hi => compare_closed i.1 i.2 hi.1 hi.2)
    (fun v hv => by
      rw [← W_CMP_fst] at hv
      exact wit_of_list _ _ W_CMP
        (fun w hw => ⟨⟨(W_CMP_ok w hw).1, (W_CMP_ok w hw).2.1⟩, (W_CMP_ok w hw).2.2⟩) v hv) f
  constructor
  · intro hf xs ys hx hy
    exact h.mp hf (xs, ys) ⟨hx, hy⟩
  · intro hr
    exact h.mpr (fun i hi => hr i.1 i.2 hi.1 hi.2)

/-- A stepper exact on the comparison views compares digit rows of every length correctly. -/
theorem compare_exact_correct (f : Stepper) (hf : ∀ v ∈ V_CMP, f v = refStep v)
    (xs ys : List Cell) (hx : Digits xs) (hy : Digits ys) :
    out f (compareP xs ys) = cmpCell (rowVal xs) (rowVal ys) := by
  rw [(run_exact f (fun v => v ∈ V_CMP) (compareP xs ys) (compare_closed xs ys hx hy) hf).1]
  exact compare_correct xs ys hx hy

/-! ### Zero test -/

theorem V_ZT_grid : V_ZT = db.map (fun a => (⟨.ZT, a, .blank, .blank⟩ : View)) := by decide +kernel

theorem zt_blank : refStep ⟨.ZT, .blank, .blank, .blank⟩ = ⟨.zero, .blank, .HALT⟩ := by decide +kernel

theorem zt_zero : refStep ⟨.ZT, .d0, .blank, .blank⟩ = ⟨.blank, .blank, .ZT⟩ := by decide +kernel

theorem zt_nonzero : ∀ a ∈ digitCells, a ≠ .d0 →
    refStep ⟨.ZT, a, .blank, .blank⟩ = ⟨.nonzero, .blank, .HALT⟩ := by decide +kernel

theorem zt_next : ∀ a ∈ db, (refStep ⟨.ZT, a, .blank, .blank⟩).next.isScan = true →
    (refStep ⟨.ZT, a, .blank, .blank⟩).next = .ZT := by decide +kernel

theorem Cell.one_le_val (x : Cell) : x.isDigit = true → x ≠ .d0 → 1 ≤ x.val := by
  cases x <;> decide

theorem Cell.val_le_eight (x : Cell) : x.isDigit = true → x ≠ .d9 → x.val ≤ 8 := by
  cases x <;> decide

theorem zeroP_log (f : Stepper) (xs : List Cell) :
    log f (zeroP xs) = log f (scanP (xs.length + 3) .ZT xs [] .blank false) := by
  unfold zeroP
  rw [log_bind, log_done, List.append_nil]

theorem zeroP_out (f : Stepper) (xs : List Cell) :
    out f (zeroP xs) = lastSym (out f (scanP (xs.length + 3) .ZT xs [] .blank false)) := by
  unfold zeroP
  rw [out_bind]
  rfl

theorem zero_closed (xs : List Cell) (hx : Digits xs) :
    ∀ x ∈ log refStep (zeroP xs), x.1 ∈ V_ZT := by
  rw [zeroP_log]
  refine scanP_inv refStep false (fun v => v ∈ V_ZT)
    (fun _ o xs' ys' c' => o = .ZT ∧ Digits xs' ∧ ys' = [] ∧ c' = .blank) ?_ ?_
    _ .ZT xs [] .blank ⟨rfl, hx, rfl, rfl⟩
  · intro m o xs' ys' c' hI
    obtain ⟨ho, hx', hy', hc'⟩ := hI
    subst ho hy' hc'
    show (⟨.ZT, hd xs', .blank, .blank⟩ : View) ∈ V_ZT
    rw [V_ZT_grid]
    exact List.mem_map.mpr ⟨_, hd_mem_db hx', rfl⟩
  · intro m o xs' ys' c' hI hs
    obtain ⟨ho, hx', hy', hc'⟩ := hI
    subst ho hy' hc'
    exact ⟨zt_next _ (hd_mem_db hx') hs, digits_tl hx', rfl, rfl⟩

theorem zero_correct_aux (n : Nat) : ∀ (xs : List Cell), Digits xs → xs.length + 1 ≤ n →
    lastSym (out refStep (scanP n .ZT xs [] .blank false)) =
      if rowVal xs = 0 then .zero else .nonzero := by
  induction n with
  | zero => intro xs _ h; omega
  | succ n ih =>
    intro xs hx hn
    cases xs with
    | nil =>
      rw [(scanP_last refStep n .ZT [] [] .blank false ⟨.ZT, .blank, .blank, .blank⟩
        ⟨.zero, .blank, .HALT⟩ rfl zt_blank rfl).1, lastSym_single]
      all_goals rfl
    | cons x xs' =>
      obtain ⟨hxd, hxs'⟩ := digits_cons hx
      have hlen : xs'.length + 1 ≤ n := by
        have : (x :: xs').length = xs'.length + 1 := rfl
        omega
      by_cases h0 : x = .d0
      · subst h0
        obtain ⟨m, rfl⟩ : ∃ m, n = m + 1 := ⟨n - 1, by omega⟩
        rw [(scanP_step refStep (m + 1) .ZT (.d0 :: xs') [] .blank false ⟨.ZT, .d0, .blank, .blank⟩
          ⟨.blank, .blank, .ZT⟩ .ZT .blank rfl zt_zero rfl rfl rfl).1,
          lastSym_cons _ _ (scanP_ne_nil refStep m _ _ _ _ _)]
        rw [show tl (Cell.d0 :: xs') = xs' from rfl, show tl ([] : List Cell) = [] from rfl,
          ih xs' hxs' hlen]
        have e : rowVal (Cell.d0 :: xs') = 0 + 10 * rowVal xs' := rfl
        rw [e]
        by_cases hR : rowVal xs' = 0
        · rw [if_pos hR, if_pos (show 0 + 10 * rowVal xs' = 0 by omega)]
        · rw [if_neg hR, if_neg (show ¬ (0 + 10 * rowVal xs' = 0) by omega)]
      · rw [(scanP_last refStep n .ZT (x :: xs') [] .blank false ⟨.ZT, x, .blank, .blank⟩
          ⟨.nonzero, .blank, .HALT⟩ rfl (zt_nonzero x (Cell.mem_digitCells_of_isDigit x hxd) h0)
          rfl).1, lastSym_single]
        have h1 := Cell.one_le_val x hxd h0
        rw [rowVal_cons, if_neg (show ¬ (x.val + 10 * rowVal xs' = 0) by omega)]
        all_goals rfl

/-- **Correctness (zero test).** The reference zero test of a digit row of any length writes
`Z` exactly when the row denotes 0, else `N`. -/
theorem zero_correct (xs : List Cell) (hx : Digits xs) :
    out refStep (zeroP xs) = if rowVal xs = 0 then .zero else .nonzero := by
  rw [zeroP_out]
  exact zero_correct_aux _ xs hx (by omega)

theorem W_ZT_fst : W_ZT.map Prod.fst = V_ZT := by decide +kernel

theorem W_ZT_ok : ∀ w ∈ W_ZT, allDigits w.2 = true ∧ w.1 ∈ Prog.views refStep (zeroP w.2) := by
  decide +kernel

/-- **Reduction (zero test).** A stepper runs every zero test of a digit row of every length
exactly as the reference iff it agrees with the reference on the 11 `ZT` views of V. -/
theorem reduction_zero (f : Stepper) :
    (∀ v ∈ V_ZT, f v = refStep v) ↔
      ∀ xs, Digits xs → steps f (zeroP xs) = steps refStep (zeroP xs) :=
  reduction_of zeroP Digits (fun v => v ∈ V_ZT) zero_closed
    (fun v hv => by
      rw [← W_ZT_fst] at hv
      exact wit_of_list _ _ W_ZT (fun w hw => W_ZT_ok w hw) v hv) f

/-! ### Increments -/

/-- What an increment writes: the scan's symbols, then x's own cells above them. -/
def incRow (t : List (View × Step)) (xs : List Cell) : List Cell := rowOf t ++ xs.drop t.length

def oddCells : List Cell := [.d1, .d3, .d5, .d7, .d9]

theorem V_INC_grid : V_INC = db.map (fun a => (⟨.INC, a, .blank, .blank⟩ : View)) := by decide +kernel

theorem V_ADD2_grid : V_ADD2 = oddCells.map (fun a => (⟨.ADD2, a, .blank, .blank⟩ : View)) := by
  decide +kernel

theorem inc_nine : refStep ⟨.INC, .d9, .blank, .blank⟩ = ⟨.d0, .blank, .INC⟩ := by decide +kernel

theorem inc_other : ∀ a ∈ db, a ≠ .d9 →
    refStep ⟨.INC, a, .blank, .blank⟩ = ⟨Cell.digit (a.val + 1), .blank, .HALT⟩ := by decide +kernel

theorem inc_next : ∀ a ∈ db, (refStep ⟨.INC, a, .blank, .blank⟩).next.isScan = true →
    (refStep ⟨.INC, a, .blank, .blank⟩).next = .INC := by decide +kernel

theorem add2_nine : refStep ⟨.ADD2, .d9, .blank, .blank⟩ = ⟨.d1, .blank, .INC⟩ := by decide +kernel

theorem add2_other : ∀ a ∈ oddCells, a ≠ .d9 →
    refStep ⟨.ADD2, a, .blank, .blank⟩ = ⟨Cell.digit (a.val + 2), .blank, .HALT⟩ ∧ a.val + 2 < 10 := by
  decide +kernel

theorem add2_next : ∀ a ∈ oddCells, (refStep ⟨.ADD2, a, .blank, .blank⟩).next.isScan = true →
    (refStep ⟨.ADD2, a, .blank, .blank⟩).next = .INC := by decide +kernel

theorem odd_isDigit : ∀ a ∈ oddCells, a.isDigit = true := by decide

theorem incP_log (f : Stepper) (op : Op) (xs : List Cell) :
    log f (incP op xs) = log f (scanP (xs.length + 3) op xs [] .blank false) := by
  unfold incP
  rw [log_bind, log_done, List.append_nil]

theorem incP_out (f : Stepper) (op : Op) (xs : List Cell) :
    out f (incP op xs) = incRow (out f (scanP (xs.length + 3) op xs [] .blank false)) xs := by
  unfold incP
  rw [out_bind]
  rfl

theorem incRow_cons (v : View) (s : Step) (t : List (View × Step)) (x : Cell) (xs : List Cell)
    (h : s.sym ≠ .blank) : incRow ((v, s) :: t) (x :: xs) = s.sym :: incRow t xs := by
  unfold incRow
  rw [rowOf_cons_step v s t h]
  rfl

theorem incRow_single (v : View) (s : Step) (xs : List Cell) (h : s.sym ≠ .blank) :
    incRow [(v, s)] xs = s.sym :: tl xs := by
  unfold incRow
  rw [rowOf_cons_step v s [] h, rowOf_nil]
  cases xs <;> rfl

theorem inc_correct_aux (n : Nat) : ∀ (xs : List Cell), Digits xs → xs.length + 1 ≤ n →
    rowVal (incRow (out refStep (scanP n .INC xs [] .blank false)) xs) = rowVal xs + 1 ∧
    Digits (incRow (out refStep (scanP n .INC xs [] .blank false)) xs) := by
  induction n with
  | zero => intro xs _ h; omega
  | succ n ih =>
    intro xs hx hn
    by_cases h9 : hd xs = .d9
    · cases xs with
      | nil => exact absurd h9 (by decide)
      | cons x xs' =>
        have hx9 : x = .d9 := h9
        subst hx9
        have hxs' := (digits_cons hx).2
        have hlen : xs'.length + 1 ≤ n := by
          have : (Cell.d9 :: xs').length = xs'.length + 1 := rfl
          omega
        obtain ⟨m, rfl⟩ : ∃ m, n = m + 1 := ⟨n - 1, by omega⟩
        rw [(scanP_step refStep (m + 1) .INC (.d9 :: xs') [] .blank false ⟨.INC, .d9, .blank, .blank⟩
          ⟨.d0, .blank, .INC⟩ .INC .blank rfl inc_nine rfl rfl rfl).1,
          incRow_cons _ _ _ _ _ (by decide),
          show tl (Cell.d9 :: xs') = xs' from rfl, show tl ([] : List Cell) = [] from rfl]
        obtain ⟨ihv, ihd⟩ := ih xs' hxs' hlen
        refine ⟨?_, digits_cons_intro rfl ihd⟩
        rw [rowVal_cons, ihv, rowVal_cons]
        show 0 + 10 * (rowVal xs' + 1) = 9 + 10 * rowVal xs' + 1
        omega
    · have hstep := inc_other (hd xs) (hd_mem_db hx) h9
      have hlt : (hd xs).val + 1 < 10 := by
        cases xs with
        | nil => decide
        | cons x xs' => have := Cell.val_le_eight x (digits_cons hx).1 h9; exact Nat.lt_of_le_of_lt (Nat.succ_le_succ this) (by decide)
      have hd' : (Cell.digit ((hd xs).val + 1)).isDigit = true := Cell.isDigit_digit _ hlt
      rw [(scanP_last refStep n .INC xs [] .blank false ⟨.INC, hd xs, .blank, .blank⟩ _ rfl hstep rfl).1,
        incRow_single _ _ _ (Cell.ne_blank_of_isDigit hd')]
      refine ⟨?_, digits_cons_intro hd' (digits_tl hx)⟩
      rw [rowVal_cons, Cell.val_digit _ hlt, rowVal_hd_tl xs]
      omega

/-- **Correctness (increment).** The reference increment of a digit row of any length writes a
digit row denoting `xs + 1`. -/
theorem inc_correct (xs : List Cell) (hx : Digits xs) :
    rowVal (out refStep (incP .INC xs)) = rowVal xs + 1 ∧ Digits (out refStep (incP .INC xs)) := by
  rw [incP_out]
  exact inc_correct_aux _ xs hx (by omega)

/-- **Correctness (add two, the odd numbers of the square root).** For a digit row whose units
digit is odd, the reference writes a digit row denoting `xs + 2`. -/
theorem add2_correct (xs : List Cell) (hx : Digits xs) (hodd : hd xs ∈ oddCells) :
    rowVal (out refStep (incP .ADD2 xs)) = rowVal xs + 2 ∧ Digits (out refStep (incP .ADD2 xs)) := by
  rw [incP_out]
  cases xs with
  | nil => exact absurd hodd (by decide)
  | cons x xs' =>
    have hxs' := (digits_cons hx).2
    have hxo : x ∈ oddCells := hodd
    by_cases h9 : x = .d9
    · subst h9
      rw [show (Cell.d9 :: xs').length + 3 = (xs'.length + 3) + 1 from rfl,
        (scanP_step refStep (xs'.length + 3) .ADD2 (.d9 :: xs') [] .blank false
          ⟨.ADD2, .d9, .blank, .blank⟩ ⟨.d1, .blank, .INC⟩ .INC .blank rfl add2_nine rfl rfl rfl).1,
        incRow_cons _ _ _ _ _ (by decide),
        show tl (Cell.d9 :: xs') = xs' from rfl, show tl ([] : List Cell) = [] from rfl]
      obtain ⟨ihv, ihd⟩ := inc_correct_aux (xs'.length + 3) xs' hxs' (by omega)
      refine ⟨?_, digits_cons_intro rfl ihd⟩
      rw [rowVal_cons, ihv, rowVal_cons]
      show 1 + 10 * (rowVal xs' + 1) = 9 + 10 * rowVal xs' + 2
      omega
    · obtain ⟨hstep, hlt⟩ := add2_other x hxo h9
      have hd' : (Cell.digit (x.val + 2)).isDigit = true := Cell.isDigit_digit _ hlt
      rw [show (x :: xs').length + 3 = (xs'.length + 3) + 1 from rfl,
        (scanP_last refStep (xs'.length + 3) .ADD2 (x :: xs') [] .blank false ⟨.ADD2, x, .blank, .blank⟩
          _ rfl hstep rfl).1,
        incRow_single _ _ _ (Cell.ne_blank_of_isDigit hd')]
      refine ⟨?_, digits_cons_intro hd' hxs'⟩
      rw [rowVal_cons, Cell.val_digit _ hlt, rowVal_cons]
      show x.val + 2 + 10 * rowVal xs' = x.val + 10 * rowVal xs' + 2
      omega

/-- The INC states of an increment scan present only `INC` views of V. -/
theorem inc_scan_closed (n : Nat) (xs : List Cell) (hx : Digits xs) :
    ∀ x ∈ log refStep (scanP n .INC xs [] .blank false), x.1 ∈ V_INC := by
  refine scanP_inv refStep false (fun v => v ∈ V_INC)
    (fun _ o xs' ys' c' => o = .INC ∧ Digits xs' ∧ ys' = [] ∧ c' = .blank) ?_ ?_
    n .INC xs [] .blank ⟨rfl, hx, rfl, rfl⟩
  · intro m o xs' ys' c' hI
    obtain ⟨ho, hx', hy', hc'⟩ := hI
    subst ho hy' hc'
    show (⟨.INC, hd xs', .blank, .blank⟩ : View) ∈ V_INC
    rw [V_INC_grid]
    exact List.mem_map.mpr ⟨_, hd_mem_db hx', rfl⟩
  · intro m o xs' ys' c' hI hs
    obtain ⟨ho, hx', hy', hc'⟩ := hI
    subst ho hy' hc'
    exact ⟨inc_next _ (hd_mem_db hx') hs, digits_tl hx', rfl, rfl⟩

theorem inc_closed (xs : List Cell) (hx : Digits xs) :
    ∀ x ∈ log refStep (incP .INC xs), x.1 ∈ V_INC := by
  rw [incP_log]
  exact inc_scan_closed _ xs hx

/-- The views of an `ADD2` increment: `V_ADD2` in the first column, `V_INC` above it. -/
def V_ADD2P (v : View) : Prop := v ∈ V_ADD2 ∨ v ∈ V_INC

theorem add2_closed (xs : List Cell) (hx : Digits xs) (hodd : hd xs ∈ oddCells) :
    ∀ x ∈ log refStep (incP .ADD2 xs), V_ADD2P x.1 := by
  rw [incP_log]
  cases xs with
  | nil => exact absurd hodd (by decide)
  | cons x xs' =>
    have hxo : x ∈ oddCells := hodd
    have hv : (⟨.ADD2, x, .blank, .blank⟩ : View) ∈ V_ADD2 := by
      rw [V_ADD2_grid]; exact List.mem_map.mpr ⟨x, hxo, rfl⟩
    intro p hp
    cases hs : (refStep ⟨.ADD2, x, .blank, .blank⟩).next.isScan with
    | false =>
      rw [show (x :: xs').length + 3 = (xs'.length + 3) + 1 from rfl,
        (scanP_halt refStep _ .ADD2 (x :: xs') [] .blank false hs).2, List.mem_singleton] at hp
      subst hp
      exact Or.inl hv
    | true =>
      rw [show (x :: xs').length + 3 = (xs'.length + 3) + 1 from rfl,
        (scanP_step refStep _ .ADD2 (x :: xs') [] .blank false ⟨.ADD2, x, .blank, .blank⟩
          (refStep ⟨.ADD2, x, .blank, .blank⟩) .INC .blank rfl rfl (add2_next x hxo hs) rfl rfl).2]
        at hp
      rcases List.mem_cons.mp hp with e | e
      · subst e; exact Or.inl hv
      · exact Or.inr (inc_scan_closed _ (tl (x :: xs')) (digits_tl hx) p e)

theorem W_INC_fst : W_INC.map Prod.fst = V_INC := by decide +kernel

theorem W_INC_ok : ∀ w ∈ W_INC, allDigits w.2 = true ∧ w.1 ∈ Prog.views refStep (incP .INC w.2) := by
  decide +kernel

theorem W_ADD2P_fst : W_ADD2P.map Prod.fst = V_ADD2 ++ V_INC := by decide +kernel

theorem W_ADD2P_ok : ∀ w ∈ W_ADD2P, (allDigits w.2 = true ∧ hd w.2 ∈ oddCells) ∧
    w.1 ∈ Prog.views refStep (incP .ADD2 w.2) := by
  decide +kernel

/-- **Reduction (increment).** A stepper runs every increment `x + 1` of a digit row of every
length exactly as the reference iff it agrees with the reference on the 11 `INC` views of V. -/
theorem reduction_inc (f : Stepper) :
    (∀ v ∈ V_INC, f v = refStep v) ↔
      ∀ xs, Digits xs → steps f (incP .INC xs) = steps refStep (incP .INC xs) :=
  reduction_of (incP .INC) Digits (fun v => v ∈ V_INC) inc_closed
    (fun v hv => by
      rw [← W_INC_fst] at hv
      exact wit_of_list _ _ W_INC (fun w hw => W_INC_ok w hw) v hv) f

/-- **Reduction (add two).** A stepper runs every `x + 2` of a digit row with an odd units digit,
of every length, exactly as the reference iff it agrees with the reference on the 5 `ADD2`
views and the 11 `INC` views of V. -/
theorem reduction_add2 (f : Stepper) :
    (∀ v, V_ADD2P v → f v = refStep v) ↔
      ∀ xs, Digits xs ∧ hd xs ∈ oddCells → steps f (incP .ADD2 xs) = steps refStep (incP .ADD2 xs) :=
  reduction_of (incP .ADD2) (fun xs => Digits xs ∧ hd xs ∈ oddCells) V_ADD2P
    (fun xs h => add2_closed xs h.1 h.2)
    (fun v hv => by
      have hv' : v ∈ V_ADD2 ++ V_INC := List.mem_append.mpr hv
      rw [← W_ADD2P_fst] at hv'
      exact wit_of_list _ _ W_ADD2P (fun w hw => W_ADD2P_ok w hw) v hv') f

end Sketchpad
