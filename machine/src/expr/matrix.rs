//! Matrices (LANGUAGE.md §6.4): the matrix product, `matrix(rows, cols, seed)`
//! (the deterministic pseudo-random matrix), `matrix([[..], ..])` from rows,
//! and `matrix_chain_order` (the textbook dynamic programme).

use std::sync::Arc;

use crate::error::ErrorKind;
use crate::expr::eval::{fail, show, EResult, EvalError};
use crate::expr::tuple::{int_elements, int_tuple, tuple_view};
use crate::span::Span;
use crate::term::{Arg, Atom, Matrix};

/// Largest number of entries of a matrix the evaluator builds.
const MAX_MATRIX_ENTRIES: usize = 1 << 24;

/// Longest chain of matrices `matrix_chain_order` handles (its tables are
/// quadratic, its time cubic).
const MAX_CHAIN: usize = 1000;

/// The product of two integer matrices, checked for overflow.
pub(super) fn matmul(a: &Matrix, b: &Matrix, span: Span) -> EResult<Atom> {
    if a.cols != b.rows {
        return fail(
            ErrorKind::Type,
            format!("cannot multiply a {}x{} matrix by a {}x{} matrix", a.rows, a.cols, b.rows, b.cols),
            span,
        );
    }
    let size = a.rows.checked_mul(b.cols).filter(|n| *n <= MAX_MATRIX_ENTRIES);
    let Some(size) = size else {
        return fail(
            ErrorKind::Overflow,
            format!(
                "the product of a {}x{} and a {}x{} matrix is too large",
                a.rows, a.cols, b.rows, b.cols
            ),
            span,
        );
    };
    let mut data = Vec::with_capacity(size);
    for i in 0..a.rows {
        for j in 0..b.cols {
            let mut sum: i64 = 0;
            for k in 0..a.cols {
                let x = a.data.get(i * a.cols + k).copied().unwrap_or(0);
                let y = b.data.get(k * b.cols + j).copied().unwrap_or(0);
                let term = x.checked_mul(y).and_then(|t| sum.checked_add(t));
                match term {
                    Some(s) => sum = s,
                    None => {
                        return fail(
                            ErrorKind::Overflow,
                            format!("integer overflow in entry ({i}, {j}) of a matrix product"),
                            span,
                        )
                    }
                }
            }
            data.push(sum);
        }
    }
    Ok(Atom::Matrix(Arc::new(Matrix {
        rows: a.rows,
        cols: b.cols,
        data,
    })))
}

/// `matrix(rows, cols, seed)`: entries 0..9 from the linear congruential
/// generator of LANGUAGE.md §6.4.
pub(super) fn random_matrix(rows: i64, cols: i64, seed: i64, span: Span) -> EResult<Atom> {
    let (Ok(r), Ok(c)) = (usize::try_from(rows), usize::try_from(cols)) else {
        return fail(
            ErrorKind::Type,
            format!("`matrix` needs non-negative rows and columns, not {rows}, {cols}"),
            span,
        );
    };
    let Some(n) = r.checked_mul(c).filter(|n| *n <= MAX_MATRIX_ENTRIES) else {
        return fail(ErrorKind::Overflow, format!("a {rows}x{cols} matrix is too large"), span);
    };
    const MODULUS: u64 = 1 << 31;
    // `seed mod 2^31`, in [0, 2^31) also for a negative seed.
    let mut state = seed.rem_euclid(MODULUS as i64) as u64;
    let mut data = Vec::with_capacity(n);
    for _ in 0..n {
        state = (1_103_515_245 * state + 12_345) % MODULUS;
        data.push(((state >> 16) % 10) as i64);
    }
    Ok(Atom::Matrix(Arc::new(Matrix { rows: r, cols: c, data })))
}

/// `matrix([[..], ..])`: a matrix from a tuple of rows of integers.
pub(super) fn matrix_from_rows(a: &Atom, span: Span) -> EResult<Atom> {
    let rows = tuple_view(a, "the argument of `matrix`", span)?;
    if let Some(v) = rows.blocked {
        return Err(EvalError::Stuck(v));
    }
    let mut data = Vec::new();
    let mut cols = None;
    for (i, row) in rows.args.iter().enumerate() {
        let Arg::Atom(row) = row else { continue };
        let xs = int_elements(row, "a row of a matrix", span)?;
        match cols {
            None => cols = Some(xs.len()),
            Some(c) if c != xs.len() => {
                return fail(
                    ErrorKind::Type,
                    format!("ragged matrix rows: row {i} has {} entries, row 0 has {c}", xs.len()),
                    span,
                )
            }
            Some(_) => {}
        }
        if data.len() + xs.len() > MAX_MATRIX_ENTRIES {
            return fail(ErrorKind::Overflow, "the matrix is too large", span);
        }
        data.extend(xs);
    }
    Ok(Atom::Matrix(Arc::new(Matrix {
        rows: rows.args.len(),
        cols: cols.unwrap_or(0),
        data,
    })))
}

/// `matrix_chain_order(a)`: the product order of the chain of matrices
/// whose dimensions are the integers of the tuple `a`.
pub(super) fn chain_order(a: &Atom, span: Span) -> EResult<Atom> {
    let dims = int_elements(a, "the argument of `matrix_chain_order`", span)?;
    let mut ds = Vec::with_capacity(dims.len());
    for d in &dims {
        match u64::try_from(*d) {
            Ok(d) => ds.push(d),
            Err(_) => return fail(ErrorKind::Type, format!("matrix dimensions must be non-negative, not {d}"), span),
        }
    }
    if ds.len() < 2 {
        return fail(
            ErrorKind::Type,
            format!("`matrix_chain_order` needs at least two dimensions (one matrix), not {}", show(a)),
            span,
        );
    }
    if ds.len() > MAX_CHAIN + 1 {
        return fail(
            ErrorKind::Overflow,
            format!("`matrix_chain_order` handles at most {MAX_CHAIN} matrices, not {}", ds.len() - 1),
            span,
        );
    }
    match matrix_chain_order(&ds) {
        Some(order) => Ok(int_tuple(&order.iter().map(|k| *k as i64).collect::<Vec<_>>())),
        None => fail(ErrorKind::Overflow, "the cost of the matrix chain overflows", span),
    }
}

/// The order of the products of the cheapest parenthesization of the chain
/// of matrices with dimensions `d` (matrix `i` is `d[i] x d[i+1]`), ties
/// broken towards the smallest split. Each product is the index of its left
/// operand in the current list of matrices. `None` if a cost overflows.
fn matrix_chain_order(d: &[u64]) -> Option<Vec<usize>> {
    let n = d.len().saturating_sub(1);
    if n == 0 {
        return Some(Vec::new());
    }
    // cost[i][j], split[i][j] for the chain i..=j.
    let mut cost = vec![vec![0u128; n]; n];
    let mut split = vec![vec![0usize; n]; n];
    for len in 2..=n {
        for i in 0..=n - len {
            let j = i + len - 1;
            let mut best: Option<(u128, usize)> = None;
            for k in i..j {
                let mult = u128::from(d[i])
                    .checked_mul(u128::from(d[k + 1]))?
                    .checked_mul(u128::from(d[j + 1]))?;
                let c = cost[i][k].checked_add(cost[k + 1][j])?.checked_add(mult)?;
                match best {
                    Some((b, _)) if b <= c => {}
                    _ => best = Some((c, k)),
                }
            }
            let (c, k) = best?;
            cost[i][j] = c;
            split[i][j] = k;
        }
    }
    // Post-order walk of the split tree, simulating the list of matrices as
    // segments (first, last) of the original chain.
    let mut segments: Vec<(usize, usize)> = (0..n).map(|i| (i, i)).collect();
    let mut order = Vec::with_capacity(n - 1);
    let mut stack: Vec<(usize, usize, bool)> = vec![(0, n - 1, false)];
    while let Some((i, j, expanded)) = stack.pop() {
        if i == j {
            continue;
        }
        let k = split[i][j];
        if expanded {
            let idx = segments.iter().position(|s| s.0 == i)?;
            segments[idx] = (i, j);
            segments.remove(idx + 1);
            order.push(idx);
        } else {
            stack.push((i, j, true));
            stack.push((k + 1, j, false));
            stack.push((i, k, false));
        }
    }
    Some(order)
}

#[cfg(test)]
mod tests {
    use rand::rngs::StdRng;
    use rand::{RngExt, SeedableRng};

    use super::*;
    use crate::expr::testing::*;

    #[test]
    fn matrices() {
        check("matrix([[1, 2], [3, 4]])", "matrix([[1, 2], [3, 4]])");
        check("dims(matrix([[1, 2, 3], [4, 5, 6]]))", "[2, 3]");
        check("matrix([[1, 2], [3, 4]])*matrix([[5, 6], [7, 8]])", "matrix([[19, 22], [43, 50]])");
        check("matrix([[1, 2, 3]])*matrix([[1], [2], [3]])", "matrix([[14]])");
        check("dims(matrix([]))", "[0, 0]");
        check("dims(matrix([[], []]))", "[2, 0]");
        check("dims(matrix(3, 4, 7))", "[3, 4]");
        check("matrix(0, 3, 0)", "matrix(0, 3, 0)");
        check("matrix(2, 3, 42)==matrix(2, 3, 42)", "true");
        check("matrix(2, 3, 42)==matrix(2, 3, 43)", "false");
        check_err("matrix([[1, 2], [3]])", ErrorKind::Type, "ragged");
        check_err("matrix([[1, 'x']])", ErrorKind::Type, "must be an integer");
        check_err("matrix([1])", ErrorKind::Type, "must be a tuple");
        check_err("matrix(1, 2)", ErrorKind::Arity, "1 or 3 arguments");
        check_err("matrix(-1, 2, 0)", ErrorKind::Type, "non-negative");
        check_err("matrix(1, -2, 0)", ErrorKind::Type, "non-negative");
        check_err("matrix(100000, 100000, 1)", ErrorKind::Overflow, "too large");
        check_err("matrix([[1, 2]])*matrix([[1, 2]])", ErrorKind::Type, "1x2 matrix by a 1x2");
        check_err("matrix([[1]])*2", ErrorKind::Type, "cannot apply `*`");
        check_err("matrix([[4611686018427387904]])*matrix([[2]])", ErrorKind::Overflow, "overflow");
        check_err(
            "matrix([[9223372036854775807, 1]])*matrix([[1], [1]])",
            ErrorKind::Overflow,
            "overflow",
        );
        check_err("dims([1])", ErrorKind::Type, "needs a matrix");
        check_stuck("matrix([[1, a]])", &[], 0);
        check_stuck("dims(b)", &[], 1);
        check_stuck("matrix(2, c, 0)", &[], 2);
    }

    #[test]
    fn random_matrix_is_the_lcg() {
        // Reference: state := seed mod 2^31; per entry
        // state := (1103515245*state + 12345) mod 2^31; entry (state>>16) mod 10.
        let seed: u64 = 12345;
        let mut state = seed % (1 << 31);
        let mut expected = Vec::new();
        for _ in 0..6 {
            state = (1_103_515_245 * state + 12_345) % (1 << 31);
            expected.push(((state >> 16) % 10) as i64);
        }
        let Ok(Atom::Matrix(ref m)) = run("matrix(2, 3, 12345)") else {
            panic!("not a matrix")
        };
        assert_eq!((m.rows, m.cols), (2, 3));
        assert_eq!(m.data, expected);
        // Seed 0: states 12345, 1406932606, 654583775; entries (state >> 16) % 10.
        let Ok(Atom::Matrix(ref m)) = run("matrix(1, 3, 0)") else {
            panic!("not a matrix")
        };
        assert_eq!(m.data, vec![0, 8, 8]);
        // The seed is taken mod 2^31.
        let (Ok(Atom::Matrix(ref a)), Ok(Atom::Matrix(ref b))) = (run("matrix(3, 3, 5)"), run("matrix(3, 3, 2147483653)")) else {
            panic!("not matrices")
        };
        assert_eq!(a, b);
        // A negative seed too, into [0, 2^31): -1 is 2^31-1, -2^31 and
        // -2^63 are 0.
        for (neg, pos) in [
            ("-1", "2147483647"),
            ("-5", "2147483643"),
            ("-2147483648", "0"),
            ("-2147483653", "2147483643"),
            ("-9223372036854775808", "0"),
        ] {
            let (Ok(Atom::Matrix(ref a)), Ok(Atom::Matrix(ref b))) =
                (run(&format!("matrix(3, 4, {neg})")), run(&format!("matrix(3, 4, {pos})")))
            else {
                panic!("not matrices: seeds {neg}, {pos}")
            };
            assert_eq!(a, b, "seeds {neg} and {pos}");
        }
        check("matrix(1, 3, -1)", "matrix([[9, 9, 2]])");
        let Ok(Atom::Matrix(ref big)) = run("matrix(20, 20, 9223372036854775807)") else {
            panic!("not a matrix")
        };
        assert!(big.data.iter().all(|x| (0..10).contains(x)));
    }

    #[test]
    fn matrix_chain_order_examples() {
        check("matrix_chain_order([10, 30, 5, 60])", "[0, 0]");
        check("matrix_chain_order([10, 5, 1, 10])", "[0, 0]");
        // A 50x5, B 5x100, C 100x10: A(BC) costs 7500, (AB)C 75000.
        check("matrix_chain_order([50, 5, 100, 10])", "[1, 0]");
        check("matrix_chain_order([2, 3])", "[]");
        check("matrix_chain_order([2, 3, 4])", "[0]");
        // Cormen's example (p. 376): ((A1(A2A3))((A4A5)A6)).
        check("matrix_chain_order([30, 35, 15, 5, 10, 20, 25])", "[1, 0, 1, 1, 0]");
        // All equal: ties go to the smallest split, k = i: A1(A2(A3 A4)).
        check("matrix_chain_order([1, 1, 1, 1, 1])", "[2, 1, 0]");
        check_err("matrix_chain_order([5])", ErrorKind::Type, "at least two");
        check_err("matrix_chain_order([])", ErrorKind::Type, "at least two");
        check_err("matrix_chain_order([1, -2])", ErrorKind::Type, "non-negative");
        check_err("matrix_chain_order(5)", ErrorKind::Type, "must be a tuple");
        check_err("matrix_chain_order([1, 'a'])", ErrorKind::Type, "must be an integer");
        check_err(
            "matrix_chain_order([9223372036854775807, 9223372036854775807, 9223372036854775807, 9223372036854775807])",
            ErrorKind::Overflow,
            "overflows",
        );
        check_stuck("matrix_chain_order([1, a, 3])", &[], 0);
        let many = Atom::Tuple((0..1002).map(|_| Arg::Atom(Atom::Int(1))).collect());
        check_err_env("matrix_chain_order(d)", &[("d", many)], ErrorKind::Overflow, "at most 1000");
    }

    type Plan = Vec<(usize, usize, usize)>;

    /// All parenthesizations of the chain i..=j as (cost, product order in
    /// terms of (i, k, j) triples in post-order).
    fn brute(d: &[u64], i: usize, j: usize) -> Vec<(u64, Plan)> {
        if i == j {
            return vec![(0, Vec::new())];
        }
        let mut out = Vec::new();
        for k in i..j {
            for (cl, ol) in brute(d, i, k) {
                for (cr, or) in brute(d, k + 1, j) {
                    let mut order = ol.clone();
                    order.extend(or.iter().copied());
                    order.push((i, k, j));
                    out.push((cl + cr + d[i] * d[k + 1] * d[j + 1], order));
                }
            }
        }
        out
    }

    /// Applies a product order to the chain and returns its cost, checking
    /// every index is valid.
    fn cost_of(d: &[u64], order: &[usize]) -> u64 {
        let mut mats: Vec<(u64, u64)> = (0..d.len() - 1).map(|i| (d[i], d[i + 1])).collect();
        let mut cost = 0;
        for &idx in order {
            assert!(idx + 1 < mats.len(), "index {idx} out of {mats:?}");
            let (a, b) = (mats[idx], mats[idx + 1]);
            assert_eq!(a.1, b.0);
            cost += a.0 * a.1 * b.1;
            mats[idx] = (a.0, b.1);
            mats.remove(idx + 1);
        }
        assert_eq!(mats.len(), 1);
        cost
    }

    #[test]
    fn matrix_chain_order_against_brute_force() {
        let mut rng = StdRng::seed_from_u64(0x0123_4567_89ab_cdef);
        for round in 0..400 {
            let n = 4 + (round % 4) as usize; // 4..=7 matrices
            let small = round % 3 == 0; // small dims give many ties
            let d: Vec<u64> = (0..=n).map(|_| 1 + rng.random_range(0..if small { 3 } else { 40 })).collect();
            let order = match matrix_chain_order(&d) {
                Some(o) => o,
                None => panic!("overflow on {d:?}"),
            };
            assert_eq!(order.len(), n - 1);
            let all = brute(&d, 0, n - 1);
            let best = all.iter().map(|(c, _)| *c).min().unwrap_or(0);
            assert_eq!(cost_of(&d, &order), best, "dims {d:?}, order {order:?}");
            // Through the evaluator too.
            let text = format!(
                "matrix_chain_order([{}])",
                d.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")
            );
            let expected = format!("[{}]", order.iter().map(ToString::to_string).collect::<Vec<_>>().join(", "));
            check(&text, &expected);
        }
    }

    /// The reference: Cormen's DP with smallest-k ties, then the post-order
    /// products as indices into the current list.
    #[test]
    fn matrix_chain_order_tie_breaking() {
        // With all dims equal, every split costs the same: the smallest split
        // k = i everywhere gives the right comb A0(A1(A2(...))).
        let d = vec![2u64; 7];
        assert_eq!(matrix_chain_order(&d), Some(vec![4, 3, 2, 1, 0]));
        // [1, 2, 1, 2]: (A0 A1) A2 costs 2 + 2 = 4, A0 (A1 A2) costs 4 + 2 = 6.
        assert_eq!(matrix_chain_order(&[1, 2, 1, 2]), Some(vec![0, 0]));
        // A0 10x1, A1 1x10, A2 10x1, A3 1x10: A0((A1A2)A3) costs 10+10+100.
        assert_eq!(matrix_chain_order(&[10, 1, 10, 1, 10]), Some(vec![1, 1, 0]));
        assert_eq!(cost_of(&[10, 1, 10, 1, 10], &[1, 1, 0]), 120);
        // A0 1x10, A1 10x1, A2 1x10, A3 10x1: (A0A1)(A2A3) costs 10+10+1.
        assert_eq!(matrix_chain_order(&[1, 10, 1, 10, 1]), Some(vec![0, 1, 0]));
        assert_eq!(cost_of(&[1, 10, 1, 10, 1], &[0, 1, 0]), 21);
    }
}
