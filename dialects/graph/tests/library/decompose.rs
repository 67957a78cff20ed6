//! The shape helpers of the decompositions (`src/decompose.rs`): broadcasting, matmul,
//! reshape, reduction and slice shapes, with `?` dims.

use dlc_graph::decompose::{
    broadcast_shapes, matmul_shape, reduced_shape, reshape_shape, slice_dim,
};
use dlc_ir::DYNAMIC;

#[test]
fn shape_rules() {
    assert_eq!(broadcast_shapes(&[4, 1], &[1, 8]), [4, 8]);
    assert_eq!(broadcast_shapes(&[DYNAMIC, 8], &[8]), [DYNAMIC, 8]);
    assert_eq!(broadcast_shapes(&[DYNAMIC, 1], &[1, 3]), [DYNAMIC, 3]);
    assert_eq!(matmul_shape(&[2, 3], &[5, 3, 4]), [5, 2, 4]);
    assert_eq!(reshape_shape(&[2, 3, 4], &[-1, 4]), [6, 4]);
    assert_eq!(reshape_shape(&[DYNAMIC, 3, 4], &[-1, 12]), [DYNAMIC, 12]);
    assert_eq!(reduced_shape(&[2, 3, 4], &[1], false), [2, 4]);
    assert_eq!(reduced_shape(&[2, 3, 4], &[0, 2], true), [1, 3, 1]);
    assert_eq!(slice_dim(10, 1, -1, 3), 3);
    assert_eq!(slice_dim(10, -4, 100, 1), 4);
    assert_eq!(slice_dim(10, 5, 2, 1), 0);
}
