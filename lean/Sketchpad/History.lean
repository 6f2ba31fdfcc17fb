/-
  Sketchpad.History — Theorem 3: no finite test suffices for steppers that also read earlier
  steps.

  A history-reading stepper sees, besides the view, the list of (view, step) pairs the run has
  produced so far.  For every bound N there is such a stepper that runs every addition of
  digit rows of length at most N exactly as the reference does, and is wrong on a longer one.
  (For plain steppers, Theorem 1 says the finite check on V is enough.)
-/
module

public import Sketchpad.Reduction

@[expose] public noncomputable section

namespace Sketchpad

/-- A stepper that may also read the steps taken so far in the run. -/
abbrev HStepper := List (View × Step) → View → Step

/-- The column scan with a history-reading stepper; `h` is the history so far. -/
def htrace (g : HStepper) : List (View × Step) → Nat → Op → List Cell → List Cell → Cell →
    List (View × Step)
  | _, 0, _, _, _, _ => []
  | h, n + 1, op, xs, ys, c =>
    if (g h ⟨op, hd xs, hd ys, c⟩).next.isScan then
      (⟨op, hd xs, hd ys, c⟩, g h ⟨op, hd xs, hd ys, c⟩) ::
        htrace g (h ++ [(⟨op, hd xs, hd ys, c⟩, g h ⟨op, hd xs, hd ys, c⟩)]) n
          (g h ⟨op, hd xs, hd ys, c⟩).next (tl xs) (tl ys) (g h ⟨op, hd xs, hd ys, c⟩).flag
    else [(⟨op, hd xs, hd ys, c⟩, g h ⟨op, hd xs, hd ys, c⟩)]

/-- The addition of two digit rows by a history-reading stepper (same runtime, same limit). -/
def hAddRun (g : HStepper) (xs ys : List Cell) : List Step :=
  (htrace g [] (max xs.length ys.length + 3) .ADD xs ys .blank).map Prod.snd

theorem htrace_step (g : HStepper) (h : List (View × Step)) (n : Nat) (op : Op)
    (xs ys : List Cell) (c : Cell) (v : View) (s : Step) (op' : Op) (xs' ys' : List Cell)
    (c' : Cell) (h' : List (View × Step))
    (hv : (⟨op, hd xs, hd ys, c⟩ : View) = v) (hf : g h v = s) (hn : s.next = op')
    (hsc : op'.isScan = true) (hxs : tl xs = xs') (hys : tl ys = ys') (hc : s.flag = c')
    (hh : h ++ [(v, s)] = h') :
    htrace g h (n + 1) op xs ys c = (v, s) :: htrace g h' n op' xs' ys' c' := by
  subst hv hf hn hxs hys hc hh
  first
    | rw [htrace, if_pos hsc]
    | simp [htrace, hsc]

theorem htrace_last (g : HStepper) (h : List (View × Step)) (n : Nat) (op : Op)
    (xs ys : List Cell) (c : Cell) (v : View) (s : Step)
    (hv : (⟨op, hd xs, hd ys, c⟩ : View) = v) (hf : g h v = s) (hsc : s.next.isScan = false) :
    htrace g h (n + 1) op xs ys c = [(v, s)] := by
  subst hv hf
  have hsc' : ¬ ((g h ⟨op, hd xs, hd ys, c⟩).next.isScan = true) := by rw [hsc]; decide
  first
    | rw [htrace, if_neg hsc']
    | simp [htrace, hsc]

/-- A history-reading stepper that answers like `f` while the history is shorter than `K`
runs like `f` for at most `K` columns. -/
theorem htrace_eq_trace (g : HStepper) (f : Stepper) (K : Nat)
    (hg : ∀ h v, h.length < K → g h v = f v) (n : Nat) :
    ∀ (h : List (View × Step)) (op : Op) (xs ys : List Cell) (c : Cell),
      h.length + n ≤ K → htrace g h n op xs ys c = trace f n op xs ys c := by
  induction n with
  | zero => intro h op xs ys c _; rfl
  | succ n ih =>
    intro h op xs ys c hK
    have hv : g h ⟨op, hd xs, hd ys, c⟩ = f ⟨op, hd xs, hd ys, c⟩ := hg h _ (by omega)
    cases hs : (f ⟨op, hd xs, hd ys, c⟩).next.isScan with
    | false =>
      rw [htrace_last g h n op xs ys c _ _ rfl hv hs, trace_halt f n op xs ys c hs]
    | true =>
      have hlen : (h ++ [((⟨op, hd xs, hd ys, c⟩ : View), f ⟨op, hd xs, hd ys, c⟩)]).length + n ≤ K := by
        rw [List.length_append]
        show h.length + 1 + n ≤ K
        omega
      rw [htrace_step g h n op xs ys c _ _ _ _ _ _ _ rfl hv rfl hs rfl rfl rfl rfl,
        trace_cont f n op xs ys c hs, ih _ _ _ _ _ hlen]

/-! ### The counterexample -/

/-- The wrong step the counterexample takes once its history is long. -/
def histBad : Step := ⟨.d0, .blank, .HALT⟩

/-- Agrees with the reference while fewer than `N + 3` steps have been taken. -/
def histStepper (N : Nat) (h : List (View × Step)) (v : View) : Step :=
  if h.length < N + 3 then refStep v else histBad

def pOne : View × Step := (⟨.ADD, .d1, .blank, .blank⟩, ⟨.d1, .blank, .ADD⟩)
def pHalt : View × Step := (⟨.ADD, .blank, .blank, .blank⟩, ⟨.blank, .blank, .HALT⟩)
def pBad : View × Step := (⟨.ADD, .blank, .blank, .blank⟩, histBad)

theorem trace_ones (m : Nat) : ∀ k, trace refStep (k + m + 1) .ADD (List.replicate k .d1) [] .blank =
    List.replicate k pOne ++ [pHalt]
  | 0 => by
    rw [Nat.zero_add]
    rw [trace_last refStep m .ADD (List.replicate 0 .d1) [] .blank ⟨.ADD, .blank, .blank, .blank⟩
      ⟨.blank, .blank, .HALT⟩ rfl add_view_halt rfl]
    try rfl
  | k + 1 => by
    rw [show k + 1 + m + 1 = (k + m + 1) + 1 by omega]
    rw [trace_step refStep (k + m + 1) .ADD (List.replicate (k + 1) .d1) [] .blank
      ⟨.ADD, .d1, .blank, .blank⟩ ⟨.d1, .blank, .ADD⟩ .ADD (List.replicate k .d1) [] .blank
      rfl add_view_one rfl rfl rfl rfl rfl, trace_ones m k]
    try rfl

theorem htrace_ones (N m : Nat) : ∀ k (h : List (View × Step)), h.length + k = N + 3 →
    htrace (histStepper N) h (k + m + 1) .ADD (List.replicate k .d1) [] .blank =
      List.replicate k pOne ++ [pBad]
  | 0, h, hl => by
    rw [Nat.zero_add]
    have hb : histStepper N h ⟨.ADD, .blank, .blank, .blank⟩ = histBad := by
      have hl3 : ¬(h.length < N + 3) := by omega
      first
        | rw [histStepper, if_neg hl3]
        | (unfold histStepper; rw [if_neg hl3])
        | simp [histStepper, hl3]
    rw [htrace_last (histStepper N) h m .ADD (List.replicate 0 .d1) [] .blank
      ⟨.ADD, .blank, .blank, .blank⟩ histBad rfl hb rfl]
    try rfl
  | k + 1, h, hl => by
    rw [show k + 1 + m + 1 = (k + m + 1) + 1 by omega]
    have hg : histStepper N h ⟨.ADD, .d1, .blank, .blank⟩ = ⟨.d1, .blank, .ADD⟩ := by
      have hl3 : h.length < N + 3 := by omega
      first
        | (rw [histStepper, if_pos hl3]; exact add_view_one)
        | (unfold histStepper; rw [if_pos hl3]; exact add_view_one)
        | simp [histStepper, hl3, add_view_one]
    have hl' : (h ++ [pOne]).length + k = N + 3 := by
      rw [List.length_append]
      show h.length + 1 + k = N + 3
      omega
    rw [htrace_step (histStepper N) h (k + m + 1) .ADD (List.replicate (k + 1) .d1) [] .blank
      ⟨.ADD, .d1, .blank, .blank⟩ ⟨.d1, .blank, .ADD⟩ .ADD (List.replicate k .d1) [] .blank
      (h ++ [pOne]) rfl hg rfl rfl rfl rfl rfl rfl, htrace_ones N m k (h ++ [pOne]) hl']
    try rfl

theorem app_cancel {α : Type} : ∀ (l : List α) (a b : List α), l ++ a = l ++ b → a = b
  | [], _, _, h => h
  | _ :: l, a, b, h => app_cancel l a b (List.cons.inj h).2

/-- **Theorem 3 (no finite test for history-reading steppers).** For every length bound `N`
there is a stepper reading earlier steps that runs every addition of digit rows of length at
most `N` exactly as the reference does, and runs some longer addition differently. -/
theorem no_finite_test (N : Nat) :
    ∃ g : HStepper,
      (∀ xs ys, Digits xs → Digits ys → xs.length ≤ N → ys.length ≤ N →
        hAddRun g xs ys = rowsRun refStep .ADD xs ys) ∧
      (∃ xs ys, Digits xs ∧ Digits ys ∧ hAddRun g xs ys ≠ rowsRun refStep .ADD xs ys) := by
  refine ⟨histStepper N, ?_, ?_⟩
  · intro xs ys _ _ hx hy
    have hm : max xs.length ys.length ≤ N := Nat.max_le.mpr ⟨hx, hy⟩
    have hg : ∀ h v, h.length < N + 3 → histStepper N h v = refStep v := by
      intro h v hl
      first
        | rw [histStepper, if_pos hl]
        | (unfold histStepper; rw [if_pos hl])
        | simp [histStepper, hl]
    unfold hAddRun rowsRun rowsTrace
    rw [htrace_eq_trace (histStepper N) refStep (N + 3) hg (max xs.length ys.length + 3) []
      .ADD xs ys .blank (by show 0 + (max xs.length ys.length + 3) ≤ N + 3; omega)]
  · refine ⟨List.replicate (N + 3) .d1, [], ?_, digits_nil, ?_⟩
    · have : ∀ k, Digits (List.replicate k Cell.d1) := by
        intro k
        induction k with
        | zero => exact digits_nil
        | succ k ih => exact digits_cons_intro rfl ih
      exact this _
    · have hfuel : max (List.replicate (N + 3) Cell.d1).length ([] : List Cell).length + 3 =
          (N + 3) + 2 + 1 := by
        have h1 := len_replicate Cell.d1 (N + 3)
        have h0 : ([] : List Cell).length = 0 := rfl
        have h2 := Nat.le_max_left (List.replicate (N + 3) Cell.d1).length ([] : List Cell).length
        have h3 : max (List.replicate (N + 3) Cell.d1).length ([] : List Cell).length ≤ N + 3 :=
          Nat.max_le.mpr ⟨by omega, by omega⟩
        omega
      unfold hAddRun rowsRun rowsTrace
      rw [hfuel, htrace_ones N 2 (N + 3) [] (by simp), trace_ones 2 (N + 3)]
      intro heq
      simp only [List.map_append] at heq
      have h2 := app_cancel _ _ _ heq
      exact absurd h2 (by decide)

end Sketchpad
