/-
  Sketchpad.ShippedSeq — the sequential mode as shipped *is* the proven evaluator (issue 21).

  `solveTop false L e` (Sketchpad.Shipped: `solve(…, parallel=False)` with its batches, errors
  and limits) is built from single views and lock-step rounds only (`PB.NoPar`), so its batches,
  flattened, are its sequential program's views (`PB.seq_flat`); and that program, whenever the
  solve ends without an `InputError`, presents exactly the views of `evalP procs1x procs2x e` —
  the evaluator of Sketchpad/EvalAll.lean whose exactness and correctness are proven
  (`evaluator_all_exact`, `evaluator_all_of_V`) — and returns its result (`solve_seq_eval`).
  So every sequential golden trace (Sketchpad/GoldenSeq.lean) is a run of the proven evaluator
  (`golden_seq_eval`).
-/
module

public import Sketchpad.GoldenCheck

@[expose] public noncomputable section

set_option autoImplicit false

namespace Sketchpad

open Prog Drive

/-- Two programs that a stepper runs alike: the same result and the same views and steps. -/
def Alike {α : Type} (f : Stepper) (p q : Prog α) : Prop := out f p = out f q ∧ log f p = log f q

theorem alike_bind {α β : Type} (f : Stepper) (p p' : Prog α) (q q' : α → Prog β) (hp : Alike f p p')
    (hq : Alike f (q (out f p)) (q' (out f p))) : Alike f (p.bind q) (p'.bind q') := by
  refine ⟨?_, ?_⟩
  · rw [out_bind, out_bind, ← hp.1, hq.1]
  · rw [log_bind, log_bind, ← hp.1, hp.2, hq.2]

/-! ### No carry-select scan, no speculative block -/

theorem noPar_done {α : Type} (a : α) : (PB.done a).NoPar := trivial

theorem noPar_ok (p : Prog SNum) :
    ((PB.lift p).bind fun r => PB.done (Except.ok (ε := PyErr) r)).NoPar :=
  PB.noPar_bind _ (fun r => PB.done (Except.ok (ε := PyErr) r)) (PB.noPar_lift _) fun _ => trivial

theorem noPar_binB (o : Op2x) (x y : SNum) : (binB false o x y).NoPar := by
  cases o with
  | add =>
    show ((PB.lift (sgnAddP .SGNADD x y)).bind fun r => PB.done (Except.ok r)).NoPar
    exact noPar_ok _
  | sub =>
    show ((PB.lift (sgnAddP .SGNSUB x y)).bind fun r => PB.done (Except.ok r)).NoPar
    exact noPar_ok _
  | mul =>
    show ((sgnMulB false x y).bind fun r => PB.done (Except.ok (ε := PyErr) r)).NoPar
    refine PB.noPar_bind _ (fun r => PB.done (Except.ok (ε := PyErr) r)) ?_ fun _ => trivial
    exact fun s ps => PB.noPar_bind _ (fun r => PB.done (s.sym, canon r)) (PB.noPar_lift _) fun _ => trivial
  | quot | rem =>
    refine PB.noPar_bind (divmodB false x y) _ ?_ fun _ => trivial
    show ((PB.lift (zeroP y.2)).bind fun z => if z = .zero then PB.done (Except.error PyErr.divZero) else
      (PB.lift ((divP x.2 y.2).bind (sdivSgn x y))).bind fun r => PB.done (Except.ok r)).NoPar
    refine PB.noPar_bind _ _ (PB.noPar_lift _) fun z => ?_
    show (if z = .zero then PB.done (Except.error PyErr.divZero) else
      (PB.lift ((divP x.2 y.2).bind (sdivSgn x y))).bind fun r => PB.done (Except.ok r)).NoPar
    by_cases h : z = .zero
    · rw [if_pos h]; trivial
    · rw [if_neg h]
      exact PB.noPar_bind _ (fun r => PB.done (Except.ok (ε := PyErr) r)) (PB.noPar_lift _) fun _ => trivial
  | gcd =>
    show ((PB.lift (gcdP x y)).bind fun r => PB.done (Except.ok r)).NoPar
    exact noPar_ok _

theorem noPar_solveB (L : Limits) : ∀ e : Expr Op1x Op2x, (solveB false L e).NoPar
  | .lit _ => trivial
  | .un .neg e => PB.noPar_bind _ _ (noPar_solveB L e) fun r => by
      cases r with
      | error x => trivial
      | ok x => exact noPar_ok _
  | .un .sqrt e => PB.noPar_bind _ _ (noPar_solveB L e) fun r => by
      cases r with
      | error x => trivial
      | ok x =>
        show (match checkNums L (some .sqrt) [x] with
          | some err => PB.done (Except.error err)
          | none => isqrtB false x).NoPar
        cases checkNums L (some .sqrt) [x] with
        | some err => trivial
        | none =>
          show (if x.1 = .minus ∧ x.2 ≠ [.d0] then PB.done (Except.error PyErr.negSqrt)
            else (PB.lift (isqrtP x)).bind fun r => PB.done (Except.ok r)).NoPar
          by_cases h : x.1 = .minus ∧ x.2 ≠ [.d0]
          · rw [if_pos h]; trivial
          · rw [if_neg h]; exact noPar_ok _
  | .bin o e1 e2 => PB.noPar_bind _ _ (noPar_solveB L e1) fun r1 => by
      cases r1 with
      | error x => trivial
      | ok x =>
        refine PB.noPar_bind _ _ (noPar_solveB L e2) fun r2 => ?_
        cases r2 with
        | error y => trivial
        | ok y =>
          show (match checkNums L (quadOf o) [x, y] with
            | some err => PB.done (Except.error err)
            | none => binB false o x y).NoPar
          cases checkNums L (quadOf o) [x, y] with
          | some err => trivial
          | none => exact noPar_binB o x y

theorem noPar_solveTop (L : Limits) (e : Expr Op1x Op2x) : (solveTop false L e).NoPar :=
  PB.noPar_bind _ _ (noPar_solveB L e) fun r => by cases r <;> trivial

/-! ### Each procedure's sequential program is the proven one -/

theorem seq_lift_ok {α : Type} (f : Stepper) (p : Prog α) :
    out f ((PB.lift p).bind fun r => PB.done (Except.ok (ε := PyErr) r)).seq = Except.ok (out f p) ∧
      log f ((PB.lift p).bind fun r => PB.done (Except.ok (ε := PyErr) r)).seq = log f p := by
  obtain ⟨h1, h2⟩ := PB.seq_bind (PB.lift p) (fun r => PB.done (Except.ok (ε := PyErr) r)) f
  rw [h1, h2, PB.seq_lift, out_bind, log_bind]
  exact ⟨rfl, List.append_nil _⟩

/-- The sequential product as shipped runs as Signed.lean's `sgnMulP`. -/
theorem sgnMulB_seq (f : Stepper) (a b : SNum) : Alike f (sgnMulB false a b).seq (sgnMulP a b) := by
  show Alike f (Prog.ask ⟨.SGNMUL, a.1, b.1, .blank⟩ fun s => (mulSeqB a.2 b.2 fun r => PB.done (s.sym, canon r)).seq)
    (Prog.ask ⟨.SGNMUL, a.1, b.1, .blank⟩ (sgnMulK a b))
  have hK : Alike f (mulSeqB a.2 b.2 fun r => PB.done ((f ⟨.SGNMUL, a.1, b.1, .blank⟩).sym, canon r)).seq
      (sgnMulK a b (f ⟨.SGNMUL, a.1, b.1, .blank⟩)) := by
    show Alike f ((roundsP (a.2.length + 3) (b.2.map (mulRowP a.2))).bind fun ps =>
        ((PB.lift (mulFinish (ps.map fun p => rowOf (Prog.resD [] p)))).bind
          fun r => PB.done ((f ⟨.SGNMUL, a.1, b.1, .blank⟩).sym, canon r)).seq)
      (((roundsP (a.2.length + 3) (b.2.map (mulRowP a.2))).bind fun ps =>
        mulFinish (ps.map fun p => rowOf (Prog.resD [] p))).bind (mulSignK (f ⟨.SGNMUL, a.1, b.1, .blank⟩)))
    rw [show ∀ (P : Prog (List (Prog (List (View × Step))))) (Q : List (Prog (List (View × Step))) → Prog (List Cell))
        (R : List Cell → Prog SNum), (P.bind Q).bind R = P.bind fun x => (Q x).bind R from
      fun P Q R => Prog.bind_assoc P Q R]
    refine alike_bind f _ _ _ _ ⟨rfl, rfl⟩ ?_
    obtain ⟨h1, h2⟩ := PB.seq_bind (PB.lift (mulFinish ((out f (roundsP (a.2.length + 3) (b.2.map (mulRowP a.2)))).map
      fun p => rowOf (Prog.resD [] p)))) (fun r => PB.done ((f ⟨.SGNMUL, a.1, b.1, .blank⟩).sym, canon r)) f
    rw [PB.seq_lift] at h1 h2
    exact ⟨h1, h2⟩
  exact ⟨hK.1, congrArg (List.cons _) hK.2⟩

theorem done_ne {α : Type} (f : Stepper) (e : PyErr) (x : α) :
    out f (PB.done (Except.error (α := α) e)).seq ≠ Except.ok x := fun h => by cases h

theorem divmodB_seq (f : Stepper) (a b : SNum) (r : SNum × SNum) (h : out f (divmodB false a b).seq = .ok r) :
    r = out f (divmodP a b) ∧ log f (divmodB false a b).seq = log f (divmodP a b) := by
  have hd : divmodB false a b = (PB.lift (zeroP b.2)).bind fun z =>
      if z = .zero then PB.done (Except.error PyErr.divZero)
      else (PB.lift ((divP a.2 b.2).bind (sdivSgn a b))).bind fun r => PB.done (Except.ok r) := rfl
  rw [hd] at h ⊢
  obtain ⟨s1, s2⟩ := PB.seq_bind (PB.lift (zeroP b.2)) (fun z =>
      if z = .zero then PB.done (Except.error PyErr.divZero)
      else (PB.lift ((divP a.2 b.2).bind (sdivSgn a b))).bind fun r => PB.done (Except.ok r)) f
  rw [s1, PB.seq_lift, out_bind] at h
  rw [s2, PB.seq_lift, log_bind]
  have hm : divmodP a b = (zeroP b.2).bind fun _ => (divP a.2 b.2).bind (sdivSgn a b) := rfl
  rw [hm, out_bind, log_bind]
  by_cases hz : out f (zeroP b.2) = .zero
  · rw [if_pos hz] at h; exact absurd h (done_ne f _ _)
  · rw [if_neg hz] at h ⊢
    obtain ⟨t1, t2⟩ := seq_lift_ok f ((divP a.2 b.2).bind (sdivSgn a b))
    rw [t1] at h
    injection h with h
    exact ⟨h.symm, by rw [t2]⟩

theorem binB_seq (f : Stepper) (o : Op2x) (x y z : SNum) (h : out f (binB false o x y).seq = .ok z) :
    z = out f ((procs2x o).prog x y) ∧ log f (binB false o x y).seq = log f ((procs2x o).prog x y) := by
  cases o with
  | add | sub | gcd =>
    first
      | (obtain ⟨t1, t2⟩ := seq_lift_ok f (sgnAddP .SGNADD x y)
         have e : binB false .add x y = (PB.lift (sgnAddP .SGNADD x y)).bind fun r => PB.done (Except.ok r) := rfl
         rw [e, t1] at h; injection h with h; rw [e, t2]; exact ⟨h.symm, rfl⟩)
      | (obtain ⟨t1, t2⟩ := seq_lift_ok f (sgnAddP .SGNSUB x y)
         have e : binB false .sub x y = (PB.lift (sgnAddP .SGNSUB x y)).bind fun r => PB.done (Except.ok r) := rfl
         rw [e, t1] at h; injection h with h; rw [e, t2]; exact ⟨h.symm, rfl⟩)
      | (obtain ⟨t1, t2⟩ := seq_lift_ok f (gcdP x y)
         have e : binB false .gcd x y = (PB.lift (gcdP x y)).bind fun r => PB.done (Except.ok r) := rfl
         rw [e, t1] at h; injection h with h; rw [e, t2]; exact ⟨h.symm, rfl⟩)
  | mul =>
    have e : binB false .mul x y = (sgnMulB false x y).bind fun r => PB.done (Except.ok r) := rfl
    obtain ⟨s1, s2⟩ := PB.seq_bind (sgnMulB false x y) (fun r => PB.done (Except.ok (ε := PyErr) r)) f
    obtain ⟨m1, m2⟩ := sgnMulB_seq f x y
    rw [e, s1, out_bind] at h
    injection h with h
    rw [e, s2, log_bind]
    refine ⟨?_, ?_⟩
    · rw [← h, m1]; rfl
    · rw [m2]; exact List.append_nil _
  | quot | rem =>
    first
      | (have e : binB false .quot x y = (divmodB false x y).bind fun r => PB.done (r.map Prod.fst) := rfl
         obtain ⟨s1, s2⟩ := PB.seq_bind (divmodB false x y) (fun r => PB.done (r.map Prod.fst)) f
         rw [e, s1, out_bind] at h
         rw [e, s2, log_bind]
         cases hr : out f (divmodB false x y).seq with
         | error err => rw [hr] at h; cases h
         | ok qr =>
           rw [hr] at h
           injection h with h
           obtain ⟨d1, d2⟩ := divmodB_seq f x y qr hr
           refine ⟨?_, ?_⟩
           · rw [← h, d1]; show _ = out f ((divmodP x y).bind fun p => Prog.done p.1); rw [out_bind]; rfl
           · rw [d2]; show _ = log f ((divmodP x y).bind fun p => Prog.done p.1); rw [log_bind]; rfl)
      | (have e : binB false .rem x y = (divmodB false x y).bind fun r => PB.done (r.map Prod.snd) := rfl
         obtain ⟨s1, s2⟩ := PB.seq_bind (divmodB false x y) (fun r => PB.done (r.map Prod.snd)) f
         rw [e, s1, out_bind] at h
         rw [e, s2, log_bind]
         cases hr : out f (divmodB false x y).seq with
         | error err => rw [hr] at h; cases h
         | ok qr =>
           rw [hr] at h
           injection h with h
           obtain ⟨d1, d2⟩ := divmodB_seq f x y qr hr
           refine ⟨?_, ?_⟩
           · rw [← h, d1]; show _ = out f ((divmodP x y).bind fun p => Prog.done p.2); rw [out_bind]; rfl
           · rw [d2]; show _ = log f ((divmodP x y).bind fun p => Prog.done p.2); rw [log_bind]; rfl)

/-- **The sequential solve as shipped runs the proven evaluator**: whenever it ends without an
`InputError`, its sequential program presents exactly the views and steps of
`evalP procs1x procs2x e` (EvalAll.lean) and returns its result — for every stepper. -/
theorem solveB_seq (f : Stepper) (L : Limits) : ∀ (e : Expr Op1x Op2x) (x : SNum),
    out f (solveB false L e).seq = .ok x →
    x = out f (evalP procs1x procs2x e) ∧ log f (solveB false L e).seq = log f (evalP procs1x procs2x e)
  | .lit n, x, h => by
    have e : out f (solveB false L (.lit n)).seq = .ok n := rfl
    rw [e] at h
    injection h with h
    exact ⟨h.symm, rfl⟩
  | .un .neg e, x, h => by
    have eu : solveB false L (.un .neg e) = (solveB false L e).bind (fun r => match r with
      | .error x => PB.done (.error x)
      | .ok x => (PB.lift (negP x)).bind fun y => PB.done (.ok y)) := rfl
    rw [eu] at h ⊢
    obtain ⟨s1, s2⟩ := PB.seq_bind (β := Except PyErr SNum) (solveB false L e) (fun r => match r with
      | .error x => PB.done (.error x)
      | .ok x => (PB.lift (negP x)).bind fun y => PB.done (.ok y)) f
    rw [s1, out_bind] at h
    rw [s2, log_bind]
    obtain ⟨u1, u2⟩ := evalP_un f procs1x procs2x .neg e
    rw [u1, u2]
    cases hr : out f (solveB false L e).seq with
    | error err => rw [hr] at h; cases h
    | ok x' =>
      rw [hr] at h
      dsimp only at h ⊢
      obtain ⟨i1, i2⟩ := solveB_seq f L e x' hr
      rw [i2, ← i1]
      obtain ⟨t1, t2⟩ := seq_lift_ok f (negP x')
      rw [t1] at h
      injection h with h
      exact ⟨h.symm, by rw [t2]; rfl⟩
  | .un .sqrt e, x, h => by
    have eu : solveB false L (.un .sqrt e) = (solveB false L e).bind (fun r => match r with
      | .error x => PB.done (.error x)
      | .ok x => match checkNums L (some .sqrt) [x] with
        | some err => PB.done (.error err)
        | none => isqrtB false x) := rfl
    rw [eu] at h ⊢
    obtain ⟨s1, s2⟩ := PB.seq_bind (β := Except PyErr SNum) (solveB false L e) (fun r => match r with
      | .error x => PB.done (.error x)
      | .ok x => match checkNums L (some .sqrt) [x] with
        | some err => PB.done (.error err)
        | none => isqrtB false x) f
    rw [s1, out_bind] at h
    rw [s2, log_bind]
    obtain ⟨u1, u2⟩ := evalP_un f procs1x procs2x .sqrt e
    rw [u1, u2]
    cases hr : out f (solveB false L e).seq with
    | error err => rw [hr] at h; cases h
    | ok x' =>
      rw [hr] at h
      dsimp only at h ⊢
      obtain ⟨i1, i2⟩ := solveB_seq f L e x' hr
      rw [i2, ← i1]
      cases hc : checkNums L (some .sqrt) [x'] with
      | some err => rw [hc] at h; cases h
      | none =>
        rw [hc] at h
        dsimp only at h ⊢
        have ei : isqrtB false x' = if x'.1 = .minus ∧ x'.2 ≠ [.d0] then PB.done (Except.error PyErr.negSqrt)
            else (PB.lift (isqrtP x')).bind fun r => PB.done (Except.ok r) := rfl
        rw [ei] at h ⊢
        by_cases hn : x'.1 = .minus ∧ x'.2 ≠ [.d0]
        · rw [if_pos hn] at h; cases h
        · rw [if_neg hn] at h ⊢
          obtain ⟨t1, t2⟩ := seq_lift_ok f (isqrtP x')
          rw [t1] at h
          injection h with h
          exact ⟨h.symm, by rw [t2]; rfl⟩
  | .bin o e1 e2, x, h => by
    have eb : solveB false L (.bin o e1 e2) = (solveB false L e1).bind (fun r1 => match r1 with
      | .error x => PB.done (.error x)
      | .ok x => (solveB false L e2).bind fun r2 => match r2 with
        | .error y => PB.done (.error y)
        | .ok y => match checkNums L (quadOf o) [x, y] with
          | some err => PB.done (.error err)
          | none => binB false o x y) := rfl
    rw [eb] at h ⊢
    obtain ⟨s1, s2⟩ := PB.seq_bind (β := Except PyErr SNum) (solveB false L e1) (fun r1 => match r1 with
      | .error x => PB.done (.error x)
      | .ok x => (solveB false L e2).bind fun r2 => match r2 with
        | .error y => PB.done (.error y)
        | .ok y => match checkNums L (quadOf o) [x, y] with
          | some err => PB.done (.error err)
          | none => binB false o x y) f
    rw [s1, out_bind] at h
    rw [s2, log_bind]
    obtain ⟨b1, b2⟩ := evalP_bin f procs1x procs2x o e1 e2
    rw [b1, b2]
    cases hr1 : out f (solveB false L e1).seq with
    | error err => rw [hr1] at h; cases h
    | ok x1 =>
      rw [hr1] at h
      obtain ⟨i1, i2⟩ := solveB_seq f L e1 x1 hr1
      rw [i2, ← i1]
      dsimp only at h ⊢
      obtain ⟨r1, r2⟩ := PB.seq_bind (β := Except PyErr SNum) (solveB false L e2) (fun r2 => match r2 with
        | .error y => PB.done (.error y)
        | .ok y => match checkNums L (quadOf o) [x1, y] with
          | some err => PB.done (.error err)
          | none => binB false o x1 y) f
      rw [r1, out_bind] at h
      rw [r2, log_bind]
      cases hr2 : out f (solveB false L e2).seq with
      | error err => rw [hr2] at h; cases h
      | ok x2 =>
        rw [hr2] at h
        obtain ⟨j1, j2⟩ := solveB_seq f L e2 x2 hr2
        rw [j2, ← j1]
        dsimp only at h ⊢
        cases hc : checkNums L (quadOf o) [x1, x2] with
        | some err => rw [hc] at h; cases h
        | none =>
          rw [hc] at h
          dsimp only at h ⊢
          obtain ⟨c1, c2⟩ := binB_seq f o x1 x2 x h
          exact ⟨c1, by rw [c2]⟩

/-- The sequential `solve`: its batches, flattened, are the proven evaluator's views and steps,
and it returns the evaluator's result (with `solve`'s own size limit on the result). -/
theorem solve_seq_eval (f : Stepper) (L : Limits) (e : Expr Op1x Op2x) (x : SNum)
    (h : dout f (solveTop false L e).drive = .ok x) :
    (dlog f (solveTop false L e).drive).flatten = log f (evalP procs1x procs2x e) ∧
      x = out f (evalP procs1x procs2x e) := by
  obtain ⟨f1, f2⟩ := PB.seq_flat f (solveTop false L e) (noPar_solveTop L e)
  rw [f2] at h
  rw [f1]
  have et : solveTop false L e = (solveB false L e).bind (solveFin L) := rfl
  rw [et] at h ⊢
  obtain ⟨s1, s2⟩ := PB.seq_bind (solveB false L e) (solveFin L) f
  rw [s1, out_bind] at h
  rw [s2, log_bind]
  cases hr : out f (solveB false L e).seq with
  | error err => rw [hr] at h; cases h
  | ok y =>
    rw [hr] at h
    obtain ⟨i1, i2⟩ := solveB_seq f L e y hr
    have hfin : out f (solveFin L (.ok y)).seq = finRes L y := rfl
    rw [hfin] at h
    unfold finRes at h
    by_cases hl : L.maxDigits < y.2.length
    · rw [if_pos hl] at h; cases h
    · rw [if_neg hl] at h
      injection h with h
      refine ⟨?_, by rw [← h, i1]⟩
      rw [i2]
      exact List.append_nil _

/-- **Every sequential golden trace is a run of the proven evaluator**: a golden theorem of the
sequential mode (Sketchpad/GoldenSeq.lean) says the model's batches are the trace's; then the
trace, flattened, is what `evalP procs1x procs2x e` presents with the reference stepper, and the
trace's value is the evaluator's (on which `evaluator_all_exact` and `evaluator_all_of_V` are
proven). -/
theorem golden_seq_eval (L : Limits) (e : Expr Op1x Op2x) (E : List (List Nat)) (v : Int)
    (h1 : dlog refStep (solveTop false L e).drive = decodeBatches E)
    (h2 : resultOf (dout refStep (solveTop false L e).drive) = .ok v) :
    (decodeBatches E).flatten = log refStep (evalP procs1x procs2x e) ∧
      (out refStep (evalP procs1x procs2x e)).val = v := by
  cases hr : dout refStep (solveTop false L e).drive with
  | error err => rw [hr] at h2; cases h2
  | ok x =>
    rw [hr] at h2
    injection h2 with h2
    obtain ⟨g1, g2⟩ := solve_seq_eval refStep L e x hr
    exact ⟨by rw [← h1, g1], by rw [← g2, ← h2]⟩

end Sketchpad
