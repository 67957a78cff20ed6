//! Dense constants (`dlc_ir::attributes`): the element order of a transpose
//! against the index formula, `transpose_bytes` against it (its merged dims and tiled planes),
//! `Context::dense_transposed` moving whole elements, and
//! `Context::dense_int_range` reading index tables.

use dlc_ir::attributes::{transpose_bytes, transpose_order};
use dlc_ir::{Context, DenseValue};

/// The input position of every result element, computed the slow way.
fn naive(shape: &[usize], perm: &[usize]) -> Vec<usize> {
    let out: Vec<usize> = perm.iter().map(|&p| shape[p]).collect();
    let count: usize = out.iter().product();
    (0..count)
        .map(|mut i| {
            let mut index = vec![0; out.len()];
            for j in (0..out.len()).rev() {
                index[j] = i % out[j];
                i /= out[j];
            }
            let mut source = vec![0; shape.len()];
            for (j, &p) in perm.iter().enumerate() {
                source[p] = index[j];
            }
            source
                .iter()
                .zip(shape)
                .fold(0, |acc, (&x, &d)| acc * d + x)
        })
        .collect()
}

#[test]
fn transpose_order_matches_the_index_formula() {
    assert_eq!(
        transpose_order(&[2, 3], &[1, 0]),
        Some(vec![0, 3, 1, 4, 2, 5])
    );
    for perm in [[0, 1, 2], [2, 0, 1], [1, 2, 0], [2, 1, 0], [0, 2, 1]] {
        assert_eq!(
            transpose_order(&[2, 3, 4], &perm),
            Some(naive(&[2, 3, 4], &perm))
        );
    }
    assert_eq!(transpose_order(&[3, 0, 2], &[2, 1, 0]), Some(vec![]));
    assert_eq!(transpose_order(&[], &[]), Some(vec![0]));
    assert_eq!(transpose_order(&[2, 3], &[0, 0]), None);
    assert_eq!(transpose_order(&[2, 3], &[0, 2]), None);
    assert_eq!(transpose_order(&[2, 3], &[0]), None);
}

/// Every permutation of `0..rank`.
fn permutations(rank: usize) -> Vec<Vec<usize>> {
    if rank == 0 {
        return vec![vec![]];
    }
    let mut all = Vec::new();
    for rest in permutations(rank - 1) {
        for at in 0..=rest.len() {
            let mut p = rest.clone();
            p.insert(at, rank - 1);
            all.push(p);
        }
    }
    all
}

/// Moving bytes gives the element order of the index formula for every permutation of shapes
/// with unit dims (which merge away), dims that stay together, and planes larger than a tile
/// with ragged edges (33 and 70 elements), for 1-, 2- and 4-byte elements.
#[test]
fn transpose_bytes_matches_the_index_formula() {
    let shapes: [&[usize]; 7] = [
        &[33, 70],
        &[2, 33, 40],
        &[3, 1, 35, 2],
        &[1, 5, 1],
        &[4, 3, 2, 5],
        &[7],
        &[],
    ];
    for shape in shapes {
        for perm in permutations(shape.len()) {
            for width in [1usize, 2, 4] {
                let count: usize = shape.iter().product();
                let data: Vec<u8> = (0..count * width).map(|i| (i * 7 % 251) as u8).collect();
                let expected: Vec<u8> = naive(shape, &perm)
                    .into_iter()
                    .flat_map(|at| data[at * width..(at + 1) * width].to_vec())
                    .collect();
                let got = transpose_bytes(&data, shape, &perm, width);
                assert_eq!(got, Some(expected), "{shape:?} by {perm:?}, {width} bytes");
            }
        }
    }
    assert_eq!(transpose_bytes(&[0; 6], &[2, 3], &[0, 0], 1), None);
    assert_eq!(transpose_bytes(&[0; 5], &[2, 3], &[1, 0], 1), None);
}

#[test]
fn dense_transposed_moves_whole_elements() {
    let mut ctx = Context::new();
    let i16 = ctx.integer_type(16);
    let (t23, t32, t6) = (
        ctx.tensor_type(&[2, 3], i16),
        ctx.tensor_type(&[3, 2], i16),
        ctx.tensor_type(&[6], i16),
    );
    let values: Vec<DenseValue> = (0..6).map(|v| DenseValue::Int(v * 300 - 700)).collect();
    let a = ctx.dense_attr(t23, &values);
    let t = ctx.dense_transposed(a, &[2, 3], &[1, 0], t32).unwrap();
    let order = [0, 3, 1, 4, 2, 5].map(|i| values[i]);
    assert_eq!(t, ctx.dense_attr(t32, &order));
    // Into a reshaped type, and a splat stays one.
    let flat = ctx.dense_transposed(a, &[2, 3], &[1, 0], t6).unwrap();
    assert_eq!(flat, ctx.dense_attr(t6, &order));
    let splat = ctx.dense_attr(t23, &[DenseValue::Int(9)]);
    let ts = ctx.dense_transposed(splat, &[2, 3], &[1, 0], t32).unwrap();
    assert_eq!(ts, ctx.dense_attr(t32, &[DenseValue::Int(9)]));
    // A type of another element count, or a shape the data does not have.
    let t4 = ctx.tensor_type(&[4], i16);
    assert_eq!(ctx.dense_transposed(a, &[2, 3], &[1, 0], t4), None);
    assert_eq!(ctx.dense_transposed(a, &[3, 3], &[1, 0], t32), None);
}

#[test]
fn dense_int_range_reads_integer_tables() {
    let mut ctx = Context::new();
    let range = |ctx: &mut Context, width: u32, values: &[i128], count: usize| {
        let elem = ctx.integer_type(width);
        let ty = ctx.tensor_type(&[count as i64], elem);
        let ints: Vec<DenseValue> = values.iter().map(|&v| DenseValue::Int(v)).collect();
        let attr = ctx.dense_attr(ty, &ints);
        let dlc_ir::AttrKind::DenseElements(dense) = ctx.attr_kind(attr) else {
            panic!("not a dense attribute");
        };
        ctx.dense_int_range(dense, count)
    };
    assert_eq!(range(&mut ctx, 32, &[5, -3, 12, 0], 4), Some((-3, 12)));
    let big = i64::MAX as i128;
    assert_eq!(range(&mut ctx, 64, &[7, big, -1], 3), Some((-1, big)));
    // A splat stands for every element; narrower elements sign-extend as they decode.
    assert_eq!(range(&mut ctx, 32, &[-4], 6), Some((-4, -4)));
    assert_eq!(range(&mut ctx, 16, &[1, -2], 2), Some((-2, 1)));
    // A float constant has no integer range.
    let ty = ctx.tensor_type(&[2], dlc_ir::Type::F32);
    let floats = ctx.dense_attr(ty, &[DenseValue::Float(1.0), DenseValue::Float(2.0)]);
    let dlc_ir::AttrKind::DenseElements(dense) = ctx.attr_kind(floats) else {
        panic!("not a dense attribute");
    };
    assert_eq!(ctx.dense_int_range(dense, 2), None);
}
