/-
  Sketchpad.Gcd — the gcd (`signed_gcd` of `sketchpad/procedures.py`, sequential mode) as a
  program of the driver: an `ABS` view (its symbol is the result's sign), then Euclid's loop —
  zero test of `b`; if `Z`, the result is `a`; else divide `a` by `b` (`divP`,
  Sketchpad/Divide.lean) and go on with `b` and the canonical remainder — for at most
  `5 · (|a| + |b|) + 10` rounds, as Python (past them Python raises; the model stops).

  Correctness: the loop's result denotes `Nat.gcd |a| |b|` (Python's `math.gcd`), within the
  budget (every two rounds halve the second number).  Reduction: exact on every input of every
  length iff exact on the 273 views `VGCD` (2 `ABS`, 11 `ZT`, the 260 of long division).
-/
module

public import Sketchpad.Divide

@[expose] public noncomputable section

set_option autoImplicit false

set_option maxRecDepth 100000
set_option maxHeartbeats 0

namespace Sketchpad

open Prog

/-! ### The program -/

/-- One round after the zero test of `ys`: `Z` ends with `xs`, else divide and go on with `ys`
and the canonical remainder. -/
def gcdK (rec : List Cell → List Cell → Prog (List Cell)) (xs ys : List Cell) (z : Cell) :
    Prog (List Cell) :=
  if z = .zero then done xs else (divP xs ys).bind fun qr => rec ys (canon qr.2)

/-- Euclid's loop, at most `n` rounds. -/
def gcdLoopP : Nat → List Cell → List Cell → Prog (List Cell)
  | 0, xs, _ => done xs
  | n + 1, xs, ys => (zeroP ys).bind (gcdK (gcdLoopP n) xs ys)

/-- The result: the `ABS` step's symbol as the sign, the canonical digits. -/
def gcdDone (s : Step) (g : List Cell) : Prog SNum := done (s.sym, canon g)

def gcdAbsK (a b : SNum) (s : Step) : Prog SNum :=
  (gcdLoopP (5 * (a.2.length + b.2.length) + 10) a.2 b.2).bind (gcdDone s)

/-- `signed_gcd`. -/
def gcdP (a b : SNum) : Prog SNum := ask ⟨.ABS, a.1, .blank, .blank⟩ (gcdAbsK a b)

theorem gcdP_eq (f : Stepper) (a b : SNum) :
    out f (gcdP a b) = ((f ⟨.ABS, a.1, .blank, .blank⟩).sym,
      canon (out f (gcdLoopP (5 * (a.2.length + b.2.length) + 10) a.2 b.2))) ∧
    log f (gcdP a b) = (⟨.ABS, a.1, .blank, .blank⟩, f ⟨.ABS, a.1, .blank, .blank⟩) ::
      log f (gcdLoopP (5 * (a.2.length + b.2.length) + 10) a.2 b.2) := by
  unfold gcdP
  rw [out_ask, log_ask, gcdAbsK, out_bind, log_bind]
  exact ⟨rfl, by rw [gcdDone, log_done, List.append_nil]⟩

theorem gcdLoop_zero (f : Stepper) (n : Nat) (xs ys : List Cell) (h : out f (zeroP ys) = .zero) :
    out f (gcdLoopP (n + 1) xs ys) = xs ∧ log f (gcdLoopP (n + 1) xs ys) = log f (zeroP ys) := by
  have e : gcdLoopP (n + 1) xs ys = (zeroP ys).bind (gcdK (gcdLoopP n) xs ys) := rfl
  rw [e, out_bind, log_bind, h]
  unfold gcdK
  rw [if_pos rfl]
  exact ⟨rfl, List.append_nil _⟩

theorem gcdLoop_step (f : Stepper) (n : Nat) (xs ys : List Cell) (h : out f (zeroP ys) ≠ .zero) :
    out f (gcdLoopP (n + 1) xs ys) = out f (gcdLoopP n ys (canon (out f (divP xs ys)).2)) ∧
    log f (gcdLoopP (n + 1) xs ys) = log f (zeroP ys) ++
      (log f (divP xs ys) ++ log f (gcdLoopP n ys (canon (out f (divP xs ys)).2))) := by
  have e : gcdLoopP (n + 1) xs ys = (zeroP ys).bind (gcdK (gcdLoopP n) xs ys) := rfl
  rw [e, out_bind, log_bind]
  unfold gcdK
  rw [if_neg h, out_bind, log_bind]
  exact ⟨rfl, rfl⟩

/-! ### Canonical remainders are divisors -/

theorem topNZ_cons (y : Cell) (l : List Cell) (h : l ≠ []) : topNZ (y :: l) = topNZ l := by
  cases l with
  | nil => exact absurd rfl h
  | cons z t => rfl

theorem stripTop_topNZ : ∀ l : List Cell, stripTop l ≠ [] → topNZ (stripTop l) = true
  | [] => fun h => absurd rfl h
  | y :: ys => by
    intro h
    by_cases hc : stripTop ys = [] ∧ y = .d0
    · have e : stripTop (y :: ys) = [] := by
        rw [stripTop_cons, if_pos hc]
      exact absurd e h
    · have e : stripTop (y :: ys) = y :: stripTop ys := by
        rw [stripTop_cons, if_neg hc]
      rw [e]
      by_cases h0 : stripTop ys = []
      · rw [h0]
        have hy : ¬ (y = .d0) := fun hy => hc ⟨h0, hy⟩
        show (!decide (y = .d0)) = true
        rw [decide_eq_false hy]
        rfl
      · rw [topNZ_cons y _ h0]
        exact stripTop_topNZ ys h0

theorem stripTop_nil_val (l : List Cell) (h : stripTop l = []) : rowVal l = 0 := by
  have := (stripTop_val l).1
  rw [h] at this
  exact this.symm

/-- A canonical row is zero or a divisor. -/
theorem canon_ok (r : List Cell) (hr : Digits r) : rowVal (canon r) = 0 ∨ topNZ (canon r) = true := by
  cases r with
  | nil => exact Or.inl rfl
  | cons x xs =>
    show rowVal (x :: stripTop xs) = 0 ∨ topNZ (x :: stripTop xs) = true
    by_cases h0 : stripTop xs = []
    · rw [h0]
      by_cases hx : x = .d0
      · left; rw [hx]; rfl
      · right
        show (!decide (x = .d0)) = true
        rw [decide_eq_false hx]
        rfl
    · right
      rw [topNZ_cons x _ h0]
      exact stripTop_topNZ xs h0

/-- A row that is zero or a divisor. -/
def DivOK (ys : List Cell) : Prop := rowVal ys = 0 ∨ topNZ ys = true

theorem divOK_topNZ (ys : List Cell) (h : DivOK ys) (h0 : rowVal ys ≠ 0) : topNZ ys = true := by
  rcases h with h | h
  · exact absurd h h0
  · exact h

/-! ### Euclid's loop: the reference run -/

/-- The views of the loop: the zero tests and the long divisions. -/
def VGCDL (v : View) : Prop := v ∈ V_ZT ∨ v ∈ V_DIV

/-- What the reference loop does on `xs`, `ys` with `n` rounds left. -/
def GcdOK (n : Nat) (xs ys : List Cell) : Prop :=
  rowVal (out refStep (gcdLoopP n xs ys)) = Nat.gcd (rowVal xs) (rowVal ys) ∧
  Digits (out refStep (gcdLoopP n xs ys)) ∧ ∀ x ∈ log refStep (gcdLoopP n xs ys), VGCDL x.1

theorem zero_flag_ne (ys : List Cell) (hy : Digits ys) (h0 : rowVal ys ≠ 0) : out refStep (zeroP ys) ≠ .zero := by
  rw [zero_correct ys hy, if_neg h0]
  intro h; cases h

theorem zero_flag_eq (ys : List Cell) (hy : Digits ys) (h0 : rowVal ys = 0) : out refStep (zeroP ys) = .zero := by
  rw [zero_correct ys hy, if_pos h0]

/-- The loop ends at once on a zero. -/
theorem gcd_ok_zero (n : Nat) (xs ys : List Cell) (hx : Digits xs) (hy : Digits ys) (h0 : rowVal ys = 0) :
    GcdOK (n + 1) xs ys := by
  obtain ⟨o, l⟩ := gcdLoop_zero refStep n xs ys (zero_flag_eq ys hy h0)
  refine ⟨?_, ?_, ?_⟩
  · rw [o, h0, Nat.gcd_zero_right]
  · rw [o]; exact hx
  · rw [l]; intro x hx'; exact Or.inl (zero_closed ys hy x hx')

/-- One round on a non-zero divisor: the loop goes on with `ys` and `xs % ys`. -/
theorem gcd_ok_step (n : Nat) (xs ys : List Cell) (hx : Digits xs) (hy : Digits ys) (hok : DivOK ys)
    (h0 : rowVal ys ≠ 0) (hnext : GcdOK n ys (canon (out refStep (divP xs ys)).2)) :
    GcdOK (n + 1) xs ys := by
  have ht := divOK_topNZ ys hok h0
  obtain ⟨d1, d2, d3, d4, d5⟩ := div_correct xs ys hx hy ht
  obtain ⟨o, l⟩ := gcdLoop_step refStep n xs ys (zero_flag_ne ys hy h0)
  obtain ⟨n1, n2, n3⟩ := hnext
  rw [canon_val, d2] at n1
  refine ⟨?_, ?_, ?_⟩
  · rw [o, n1]
    -- gcd x y = gcd y (x % y)
    rw [Nat.gcd_comm (rowVal xs) (rowVal ys), Nat.gcd_rec (rowVal ys) (rowVal xs), Nat.gcd_comm]
  · rw [o]; exact n2
  · rw [l]
    intro x hx'
    rcases List.mem_append.mp hx' with e | e
    · exact Or.inl (zero_closed ys hy x e)
    · rcases List.mem_append.mp e with e | e
      · exact Or.inr (d5 x e)
      · exact n3 x e

/-- Two rounds of Euclid at least halve the second number. -/
theorem mod_mod_half (X Y : Nat) (hY : 0 < Y) (h1 : X % Y ≠ 0) : 2 * (Y % (X % Y)) < Y := by
  have hr := Nat.mod_lt X hY
  have hpos : 0 < X % Y := Nat.pos_of_ne_zero h1
  have h2 := Nat.mod_lt Y hpos
  have h3 := Nat.mod_add_div Y (X % Y)
  have h4 : 0 < Y / (X % Y) := Nat.div_pos (Nat.le_of_lt hr) hpos
  have h5 := Nat.mul_le_mul_left (X % Y) h4
  omega

theorem pow2_succ (k : Nat) : 2 ^ (k + 1) = 2 * 2 ^ k := by rw [Nat.pow_succ, Nat.mul_comm]

/-- **Euclid's loop, within its budget.** If the second number is below `2^k`, `2k + 1` rounds
suffice. -/
theorem gcd_ok_k (k : Nat) : ∀ (n : Nat) (xs ys : List Cell), Digits xs → Digits ys → DivOK ys →
    rowVal ys < 2 ^ k → 2 * k + 1 ≤ n → GcdOK n xs ys := by
  induction k with
  | zero =>
    intro n xs ys hx hy _ hlt hn
    obtain ⟨m, rfl⟩ : ∃ m, n = m + 1 := ⟨n - 1, by omega⟩
    exact gcd_ok_zero m xs ys hx hy (by rw [Nat.pow_zero] at hlt; omega)
  | succ k ih =>
    intro n xs ys hx hy hok hlt hn
    obtain ⟨m, rfl⟩ : ∃ m, n = m + 1 := ⟨n - 1, by omega⟩
    by_cases h0 : rowVal ys = 0
    · exact gcd_ok_zero m xs ys hx hy h0
    · have ht := divOK_topNZ ys hok h0
      obtain ⟨_, d2, _, d4, _⟩ := div_correct xs ys hx hy ht
      have hr := canon_digits _ d4
      have hrv : rowVal (canon (out refStep (divP xs ys)).2) = rowVal xs % rowVal ys := by
        rw [canon_val, d2]
      apply gcd_ok_step m xs ys hx hy hok h0
      obtain ⟨m', rfl⟩ : ∃ m', m = m' + 1 := ⟨m - 1, by omega⟩
      by_cases h1 : rowVal xs % rowVal ys = 0
      · exact gcd_ok_zero m' _ _ hy hr (by rw [hrv]; exact h1)
      · have hok' : DivOK (canon (out refStep (divP xs ys)).2) := canon_ok _ d4
        apply gcd_ok_step m' ys _ hy hr hok' (by rw [hrv]; exact h1)
        have hh := mod_mod_half (rowVal xs) (rowVal ys) (Nat.pos_of_ne_zero h0) h1
        have ht' := divOK_topNZ _ hok' (by rw [hrv]; exact h1)
        obtain ⟨_, e2, _, e4, _⟩ := div_correct ys _ hy hr ht'
        rw [hrv] at e2
        refine ih m' _ _ hr (canon_digits _ e4) (canon_ok _ e4) ?_ (by omega)
        rw [canon_val, e2]
        rw [pow2_succ] at hlt
        omega

/-- The same with the first number below `2^k` and one round more. -/
theorem gcd_ok_x (k : Nat) (n : Nat) (xs ys : List Cell) (hx : Digits xs) (hy : Digits ys) (hok : DivOK ys)
    (hlt : rowVal xs < 2 ^ k) (hn : 2 * k + 2 ≤ n) : GcdOK n xs ys := by
  obtain ⟨m, rfl⟩ : ∃ m, n = m + 1 := ⟨n - 1, by omega⟩
  by_cases h0 : rowVal ys = 0
  · exact gcd_ok_zero m xs ys hx hy h0
  · have ht := divOK_topNZ ys hok h0
    obtain ⟨_, d2, _, d4, _⟩ := div_correct xs ys hx hy ht
    apply gcd_ok_step m xs ys hx hy hok h0
    refine gcd_ok_k k m ys _ hy (canon_digits _ d4) (canon_ok _ d4) ?_ (by omega)
    rw [canon_val, d2]
    have := Nat.mod_le (rowVal xs) (rowVal ys)
    omega

theorem pow10_le_pow2 (L : Nat) : 10 ^ L ≤ 2 ^ (4 * L) := by
  rw [Nat.pow_mul]
  exact Nat.pow_le_pow_left (by decide) L

/-- **Euclid's loop with Python's budget** `5 · (|xs| + |ys|) + 10` rounds. -/
theorem gcd_loop_ref (xs ys : List Cell) (hx : Digits xs) (hy : Digits ys) (hok : DivOK ys) :
    GcdOK (5 * (xs.length + ys.length) + 10) xs ys := by
  by_cases hc : 3 * ys.length ≤ 5 * xs.length + 9
  · refine gcd_ok_k (4 * ys.length) _ xs ys hx hy hok ?_ (by omega)
    have := rowVal_lt_pow ys
    have := pow10_le_pow2 ys.length
    omega
  · refine gcd_ok_x (4 * xs.length) _ xs ys hx hy hok ?_ (by omega)
    have := rowVal_lt_pow xs
    have := pow10_le_pow2 xs.length
    omega

/-! ### Signed gcd: correctness and reduction -/

theorem abs_step : ∀ s ∈ signs, refStep ⟨.ABS, s, .blank, .blank⟩ = ⟨.plus, .blank, .HALT⟩ ∧
    (⟨.ABS, s, .blank, .blank⟩ : View) ∈ V_ABS := by decide +kernel

/-- The views of a gcd: the 2 `ABS` views, the 11 `ZT` views, the 260 views of long division. -/
def VGCD (v : View) : Prop := v ∈ V_ABS ∨ v ∈ V_ZT ∨ v ∈ V_DIV

/-- The gcd of two integers, as Python's `math.gcd` (non-negative). -/
def intGcd (x y : Int) : Int := ((Nat.gcd x.natAbs y.natAbs : Nat) : Int)

theorem natAbs_sval (s : Cell) (m : Nat) : (sval s m).natAbs = m := by
  unfold sval
  by_cases h : s = .minus
  · rw [if_pos h]; cases m <;> rfl
  · rw [if_neg h]; rfl

/-- **Correctness (signed gcd).** For signed numbers `a`, `b` (digit rows of any lengths; `b`
zero or with a top digit other than 0, as every number Python passes), the reference writes
a well-formed signed number denoting `gcd(|a|, |b|)` (Python's `math.gcd`), and presents only
views of `VGCD`. -/
theorem signed_gcd_correct (a b : SNum) (ha : a.WF) (hb : b.WF) (hok : DivOK b.2) :
    (out refStep (gcdP a b)).WF ∧ (out refStep (gcdP a b)).val = intGcd a.val b.val ∧
    ∀ x ∈ log refStep (gcdP a b), VGCD x.1 := by
  obtain ⟨o, l⟩ := gcdP_eq refStep a b
  obtain ⟨s1, s2⟩ := abs_step a.1 (SNum.sign_mem ha)
  obtain ⟨g1, g2, g3⟩ := gcd_loop_ref a.2 b.2 ha.2 hb.2 hok
  rw [s1] at o l
  refine ⟨?_, ?_, ?_⟩
  · rw [o]; exact ⟨Or.inl rfl, canon_digits _ g2⟩
  · rw [o, val_eq_sval, sval_plus, canon_val, g1]
    show _ = ((Nat.gcd (SNum.val a).natAbs (SNum.val b).natAbs : Nat) : Int)
    rw [show SNum.val a = sval a.1 (rowVal a.2) from rfl, show SNum.val b = sval b.1 (rowVal b.2) from rfl,
      natAbs_sval, natAbs_sval]
  · rw [l]
    intro x hx
    rcases List.mem_cons.mp hx with e | e
    · subst e; exact Or.inl s2
    · rcases g3 x e with h | h
      · exact Or.inr (Or.inl h)
      · exact Or.inr (Or.inr h)

theorem W_GCD_fst : W_GCD.map Prod.fst = V_ABS ++ V_ZT := by decide +kernel

/-- `DivOK` as a Boolean check (for the generated witnesses). -/
def divOKb (ys : List Cell) : Bool := decide (rowVal ys = 0) || topNZ ys

theorem divOK_of_b (ys : List Cell) (h : divOKb ys = true) : DivOK ys := by
  unfold divOKb at h
  cases h1 : decide (rowVal ys = 0) <;> cases h2 : topNZ ys <;> rw [h1, h2] at h <;> simp at h
  all_goals first
    | exact Or.inl (of_decide_eq_true h1)
    | exact Or.inr h2

theorem W_GCD_ok : ∀ w ∈ W_GCD, (SNum.wfb w.2.1 = true ∧ SNum.wfb w.2.2 = true ∧ divOKb w.2.2.2 = true) ∧
    w.1 ∈ Prog.views refStep (gcdP w.2.1 w.2.2) := by decide +kernel

/-- The views of a long division are presented by the gcd of the same rows. -/
theorem div_views_gcd (xs ys : List Cell) (hy : Digits ys) (ht : topNZ ys = true) (v : View)
    (hv : v ∈ Prog.views refStep (divP xs ys)) :
    v ∈ Prog.views refStep (gcdP (.plus, xs) (.plus, ys)) := by
  have h0 : rowVal ys ≠ 0 := Nat.pos_iff_ne_zero.mp (topNZ_pos ys hy ht)
  unfold Prog.views at hv ⊢
  rw [(gcdP_eq refStep (.plus, xs) (.plus, ys)).2, List.map_cons]
  apply List.mem_cons_of_mem
  show v ∈ (log refStep (gcdLoopP (5 * (xs.length + ys.length) + 9 + 1) xs ys)).map Prod.fst
  rw [(gcdLoop_step refStep _ xs ys (zero_flag_ne ys hy h0)).2, List.map_append, List.map_append]
  exact List.mem_append_right _ (List.mem_append_left _ hv)

theorem gcd_wit : ∀ v, VGCD v → ∃ i : SNum × SNum, (i.1.WF ∧ i.2.WF ∧ DivOK i.2.2) ∧
    v ∈ Prog.views refStep (gcdP i.1 i.2) := by
  intro v hv
  have hW : ∀ v, v ∈ V_ABS ++ V_ZT → ∃ i : SNum × SNum, (i.1.WF ∧ i.2.WF ∧ DivOK i.2.2) ∧
      v ∈ Prog.views refStep (gcdP i.1 i.2) := by
    intro v hv
    rw [← W_GCD_fst] at hv
    obtain ⟨w, hw, rfl⟩ := List.mem_map.mp hv
    obtain ⟨⟨h1, h2, h3⟩, h4⟩ := W_GCD_ok w hw
    exact ⟨w.2, ⟨SNum.wf_of_wfb _ h1, SNum.wf_of_wfb _ h2, divOK_of_b _ h3⟩, h4⟩
  rcases hv with h | h | h
  · exact hW v (List.mem_append_left _ h)
  · exact hW v (List.mem_append_right _ h)
  · rw [← W_DIV_fst] at h
    obtain ⟨w, hw, rfl⟩ := List.mem_map.mp h
    obtain ⟨⟨h1, h2, h3⟩, h4⟩ := W_DIV_ok w hw
    exact ⟨((.plus, w.2.1), (.plus, w.2.2)), ⟨⟨Or.inl rfl, h1⟩, ⟨Or.inl rfl, h2⟩, Or.inr h3⟩,
      div_views_gcd _ _ h2 h3 _ h4⟩

/-- **Reduction (signed gcd).** A stepper runs every gcd of signed numbers of every length
exactly as the reference iff it agrees with the reference on the 273 views of `VGCD`. -/
theorem reduction_gcd (f : Stepper) :
    (∀ v, VGCD v → f v = refStep v) ↔
      ∀ a b : SNum, a.WF → b.WF → DivOK b.2 → steps f (gcdP a b) = steps refStep (gcdP a b) := by
  have h := reduction_of (fun i : SNum × SNum => gcdP i.1 i.2) (fun i => i.1.WF ∧ i.2.WF ∧ DivOK i.2.2)
    VGCD (fun i hi => (signed_gcd_correct i.1 i.2 hi.1 hi.2.1 hi.2.2).2.2) gcd_wit f
  constructor
  · intro hf a b ha hb hok; exact h.mp hf (a, b) ⟨ha, hb, hok⟩
  · intro hr; exact h.mpr (fun i hi => hr i.1 i.2 hi.1 hi.2.1 hi.2.2)

/-- The gcd as an exact procedure (`gcd(a, b)`). -/
def gcdProc : ExactProc2 where
  prog := gcdP
  dom := fun _ b => DivOK b.2
  views := VGCD
  sem := intGcd
  closed := fun a b ha hb h => (signed_gcd_correct a b ha hb h).2.2
  wit := fun v hv => by
    obtain ⟨i, ⟨h1, h2, h3⟩, h4⟩ := gcd_wit v hv
    exact ⟨i.1, i.2, h1, h2, h3, h4⟩
  wf := fun a b ha hb h => (signed_gcd_correct a b ha hb h).1
  correct := fun a b ha hb h => (signed_gcd_correct a b ha hb h).2.1

end Sketchpad
