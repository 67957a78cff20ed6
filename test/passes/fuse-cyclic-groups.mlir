// RUN: dlc-opt %s --pipeline=fuse --no-implicit-lowering --pass-statistics 2>&1 | FileCheck %s
// RUN: dlc-opt %s --pipeline=fuse,lower,cpu-default --no-implicit-lowering -o /dev/null

// Two groups the partition forms, each convex, that feed each other (found by a trilinear
// GridSample of the ONNX node tests, reduced): outlining both would need each fusion before
// the other, so the second stays unfused and the output verifies (dlc-opt checks the IR after
// every pass). Constants a group shares with outside users are copied into it rather than
// made outputs, so sharing a constant alone never ties two groups together.

// CHECK: (S) 2 num-groups
// CHECK: (S) 1 num-cyclic-groups-left
module {
  func.func @main(%arg0: tensor<1x1x3x2x2xf32>, %arg1: tensor<1x2x4x2x3xf32>) -> tensor<1x2x4x2xf32> {
    %0 = graph.slice %arg1 {ends = array<i64: 9223372036854775807, 9223372036854775807, 9223372036854775807, 9223372036854775807, 3>, starts = array<i64: 0, 0, 0, 0, 2>, steps = array<i64: 1, 1, 1, 1, 1>} : tensor<1x2x4x2x3xf32> -> tensor<1x2x4x2x1xf32>
    %1 = graph.reshape %0 {shape = array<i64: 1, 2, 4, 2>} : tensor<1x2x4x2x1xf32> -> tensor<1x2x4x2xf32>
    %2 = graph.constant dense<1.000000e+00> : tensor<f32>
    %3 = graph.add %1, %2 : tensor<1x2x4x2xf32>, tensor<f32> -> tensor<1x2x4x2xf32>
    %4 = graph.constant dense<3.000000e+00> : tensor<f32>
    %5 = graph.mul %3, %4 : tensor<1x2x4x2xf32>, tensor<f32> -> tensor<1x2x4x2xf32>
    %6 = graph.sub %5, %2 : tensor<1x2x4x2xf32>, tensor<f32> -> tensor<1x2x4x2xf32>
    %7 = graph.constant dense<5.000000e-01> : tensor<f32>
    %8 = graph.mul %6, %7 : tensor<1x2x4x2xf32>, tensor<f32> -> tensor<1x2x4x2xf32>
    %9 = graph.floor %8 : tensor<1x2x4x2xf32>
    %10 = graph.sub %8, %9 : tensor<1x2x4x2xf32>
    %11 = graph.constant dense<1.000000e+00> : tensor<f32>
    %12 = graph.sub %11, %10 : tensor<f32>, tensor<1x2x4x2xf32> -> tensor<1x2x4x2xf32>
    %13 = graph.constant dense<0.000000e+00> : tensor<f32>
    %14 = graph.add %9, %13 : tensor<1x2x4x2xf32>, tensor<f32> -> tensor<1x2x4x2xf32>
    %15 = graph.constant dense<0.000000e+00> : tensor<f32>
    %16 = graph.constant dense<2.000000e+00> : tensor<f32>
    %17 = graph.cmp lt, %14, %15 : tensor<1x2x4x2xf32>, tensor<f32> -> tensor<1x2x4x2xi1>
    %18 = graph.cmp gt, %14, %16 : tensor<1x2x4x2xf32>, tensor<f32> -> tensor<1x2x4x2xi1>
    %19 = graph.or %17, %18 : tensor<1x2x4x2xi1>
    %20 = graph.constant dense<0.000000e+00> : tensor<f32>
    %21 = graph.select %19, %20, %12 : tensor<1x2x4x2xi1>, tensor<f32>, tensor<1x2x4x2xf32> -> tensor<1x2x4x2xf32>
    %22 = graph.constant dense<0.000000e+00> : tensor<f32>
    %23 = graph.constant dense<2.000000e+00> : tensor<f32>
    %24 = graph.max %14, %22 : tensor<1x2x4x2xf32>, tensor<f32> -> tensor<1x2x4x2xf32>
    %25 = graph.min %24, %23 : tensor<1x2x4x2xf32>, tensor<f32> -> tensor<1x2x4x2xf32>
    %26 = graph.constant dense<1.000000e+00> : tensor<f32>
    %27 = graph.add %9, %26 : tensor<1x2x4x2xf32>, tensor<f32> -> tensor<1x2x4x2xf32>
    %28 = graph.constant dense<0.000000e+00> : tensor<f32>
    %29 = graph.constant dense<2.000000e+00> : tensor<f32>
    %30 = graph.cmp lt, %27, %28 : tensor<1x2x4x2xf32>, tensor<f32> -> tensor<1x2x4x2xi1>
    %31 = graph.cmp gt, %27, %29 : tensor<1x2x4x2xf32>, tensor<f32> -> tensor<1x2x4x2xi1>
    %32 = graph.or %30, %31 : tensor<1x2x4x2xi1>
    %33 = graph.constant dense<0.000000e+00> : tensor<f32>
    %34 = graph.select %32, %33, %10 : tensor<1x2x4x2xi1>, tensor<f32>, tensor<1x2x4x2xf32> -> tensor<1x2x4x2xf32>
    %35 = graph.constant dense<0.000000e+00> : tensor<f32>
    %36 = graph.constant dense<2.000000e+00> : tensor<f32>
    %37 = graph.max %27, %35 : tensor<1x2x4x2xf32>, tensor<f32> -> tensor<1x2x4x2xf32>
    %38 = graph.min %37, %36 : tensor<1x2x4x2xf32>, tensor<f32> -> tensor<1x2x4x2xf32>
    %39 = graph.cast %25 : tensor<1x2x4x2xf32> -> tensor<1x2x4x2xi64>
    %40 = graph.constant dense<4> : tensor<i64>
    %41 = graph.mul %39, %40 : tensor<1x2x4x2xi64>, tensor<i64> -> tensor<1x2x4x2xi64>
    %42 = graph.cast %38 : tensor<1x2x4x2xf32> -> tensor<1x2x4x2xi64>
    %43 = graph.constant dense<4> : tensor<i64>
    %44 = graph.mul %42, %43 : tensor<1x2x4x2xi64>, tensor<i64> -> tensor<1x2x4x2xi64>
    %45 = graph.slice %arg1 {ends = array<i64: 9223372036854775807, 9223372036854775807, 9223372036854775807, 9223372036854775807, 2>, starts = array<i64: 0, 0, 0, 0, 1>, steps = array<i64: 1, 1, 1, 1, 1>} : tensor<1x2x4x2x3xf32> -> tensor<1x2x4x2x1xf32>
    %46 = graph.reshape %45 {shape = array<i64: 1, 2, 4, 2>} : tensor<1x2x4x2x1xf32> -> tensor<1x2x4x2xf32>
    %47 = graph.constant dense<1.000000e+00> : tensor<f32>
    %48 = graph.add %46, %47 : tensor<1x2x4x2xf32>, tensor<f32> -> tensor<1x2x4x2xf32>
    %49 = graph.constant dense<2.000000e+00> : tensor<f32>
    %50 = graph.mul %48, %49 : tensor<1x2x4x2xf32>, tensor<f32> -> tensor<1x2x4x2xf32>
    %51 = graph.sub %50, %47 : tensor<1x2x4x2xf32>, tensor<f32> -> tensor<1x2x4x2xf32>
    %52 = graph.constant dense<5.000000e-01> : tensor<f32>
    %53 = graph.mul %51, %52 : tensor<1x2x4x2xf32>, tensor<f32> -> tensor<1x2x4x2xf32>
    %54 = graph.floor %53 : tensor<1x2x4x2xf32>
    %55 = graph.sub %53, %54 : tensor<1x2x4x2xf32>
    %56 = graph.constant dense<1.000000e+00> : tensor<f32>
    %57 = graph.sub %56, %55 : tensor<f32>, tensor<1x2x4x2xf32> -> tensor<1x2x4x2xf32>
    %58 = graph.constant dense<0.000000e+00> : tensor<f32>
    %59 = graph.add %54, %58 : tensor<1x2x4x2xf32>, tensor<f32> -> tensor<1x2x4x2xf32>
    %60 = graph.constant dense<0.000000e+00> : tensor<f32>
    %61 = graph.constant dense<1.000000e+00> : tensor<f32>
    %62 = graph.cmp lt, %59, %60 : tensor<1x2x4x2xf32>, tensor<f32> -> tensor<1x2x4x2xi1>
    %63 = graph.cmp gt, %59, %61 : tensor<1x2x4x2xf32>, tensor<f32> -> tensor<1x2x4x2xi1>
    %64 = graph.or %62, %63 : tensor<1x2x4x2xi1>
    %65 = graph.constant dense<0.000000e+00> : tensor<f32>
    %66 = graph.select %64, %65, %57 : tensor<1x2x4x2xi1>, tensor<f32>, tensor<1x2x4x2xf32> -> tensor<1x2x4x2xf32>
    %67 = graph.constant dense<0.000000e+00> : tensor<f32>
    %68 = graph.constant dense<1.000000e+00> : tensor<f32>
    %69 = graph.max %59, %67 : tensor<1x2x4x2xf32>, tensor<f32> -> tensor<1x2x4x2xf32>
    %70 = graph.min %69, %68 : tensor<1x2x4x2xf32>, tensor<f32> -> tensor<1x2x4x2xf32>
    %71 = graph.constant dense<1.000000e+00> : tensor<f32>
    %72 = graph.add %54, %71 : tensor<1x2x4x2xf32>, tensor<f32> -> tensor<1x2x4x2xf32>
    %73 = graph.constant dense<0.000000e+00> : tensor<f32>
    %74 = graph.constant dense<1.000000e+00> : tensor<f32>
    %75 = graph.cmp lt, %72, %73 : tensor<1x2x4x2xf32>, tensor<f32> -> tensor<1x2x4x2xi1>
    %76 = graph.cmp gt, %72, %74 : tensor<1x2x4x2xf32>, tensor<f32> -> tensor<1x2x4x2xi1>
    %77 = graph.or %75, %76 : tensor<1x2x4x2xi1>
    %78 = graph.constant dense<0.000000e+00> : tensor<f32>
    %79 = graph.select %77, %78, %55 : tensor<1x2x4x2xi1>, tensor<f32>, tensor<1x2x4x2xf32> -> tensor<1x2x4x2xf32>
    %80 = graph.constant dense<0.000000e+00> : tensor<f32>
    %81 = graph.constant dense<1.000000e+00> : tensor<f32>
    %82 = graph.max %72, %80 : tensor<1x2x4x2xf32>, tensor<f32> -> tensor<1x2x4x2xf32>
    %83 = graph.min %82, %81 : tensor<1x2x4x2xf32>, tensor<f32> -> tensor<1x2x4x2xf32>
    %84 = graph.cast %70 : tensor<1x2x4x2xf32> -> tensor<1x2x4x2xi64>
    %85 = graph.constant dense<2> : tensor<i64>
    %86 = graph.mul %84, %85 : tensor<1x2x4x2xi64>, tensor<i64> -> tensor<1x2x4x2xi64>
    %87 = graph.cast %83 : tensor<1x2x4x2xf32> -> tensor<1x2x4x2xi64>
    %88 = graph.constant dense<2> : tensor<i64>
    %89 = graph.mul %87, %88 : tensor<1x2x4x2xi64>, tensor<i64> -> tensor<1x2x4x2xi64>
    %90 = graph.slice %arg1 {ends = array<i64: 9223372036854775807, 9223372036854775807, 9223372036854775807, 9223372036854775807, 1>, starts = array<i64: 0, 0, 0, 0, 0>, steps = array<i64: 1, 1, 1, 1, 1>} : tensor<1x2x4x2x3xf32> -> tensor<1x2x4x2x1xf32>
    %91 = graph.reshape %90 {shape = array<i64: 1, 2, 4, 2>} : tensor<1x2x4x2x1xf32> -> tensor<1x2x4x2xf32>
    %92 = graph.constant dense<1.000000e+00> : tensor<f32>
    %93 = graph.add %91, %92 : tensor<1x2x4x2xf32>, tensor<f32> -> tensor<1x2x4x2xf32>
    %94 = graph.constant dense<2.000000e+00> : tensor<f32>
    %95 = graph.mul %93, %94 : tensor<1x2x4x2xf32>, tensor<f32> -> tensor<1x2x4x2xf32>
    %96 = graph.sub %95, %92 : tensor<1x2x4x2xf32>, tensor<f32> -> tensor<1x2x4x2xf32>
    %97 = graph.constant dense<5.000000e-01> : tensor<f32>
    %98 = graph.mul %96, %97 : tensor<1x2x4x2xf32>, tensor<f32> -> tensor<1x2x4x2xf32>
    %99 = graph.floor %98 : tensor<1x2x4x2xf32>
    %100 = graph.sub %98, %99 : tensor<1x2x4x2xf32>
    %101 = graph.constant dense<1.000000e+00> : tensor<f32>
    %102 = graph.sub %101, %100 : tensor<f32>, tensor<1x2x4x2xf32> -> tensor<1x2x4x2xf32>
    %103 = graph.constant dense<0.000000e+00> : tensor<f32>
    %104 = graph.add %99, %103 : tensor<1x2x4x2xf32>, tensor<f32> -> tensor<1x2x4x2xf32>
    %105 = graph.constant dense<0.000000e+00> : tensor<f32>
    %106 = graph.constant dense<1.000000e+00> : tensor<f32>
    %107 = graph.cmp lt, %104, %105 : tensor<1x2x4x2xf32>, tensor<f32> -> tensor<1x2x4x2xi1>
    %108 = graph.cmp gt, %104, %106 : tensor<1x2x4x2xf32>, tensor<f32> -> tensor<1x2x4x2xi1>
    %109 = graph.or %107, %108 : tensor<1x2x4x2xi1>
    %110 = graph.constant dense<0.000000e+00> : tensor<f32>
    %111 = graph.select %109, %110, %102 : tensor<1x2x4x2xi1>, tensor<f32>, tensor<1x2x4x2xf32> -> tensor<1x2x4x2xf32>
    %112 = graph.constant dense<0.000000e+00> : tensor<f32>
    %113 = graph.constant dense<1.000000e+00> : tensor<f32>
    %114 = graph.max %104, %112 : tensor<1x2x4x2xf32>, tensor<f32> -> tensor<1x2x4x2xf32>
    %115 = graph.min %114, %113 : tensor<1x2x4x2xf32>, tensor<f32> -> tensor<1x2x4x2xf32>
    %116 = graph.constant dense<1.000000e+00> : tensor<f32>
    %117 = graph.add %99, %116 : tensor<1x2x4x2xf32>, tensor<f32> -> tensor<1x2x4x2xf32>
    %118 = graph.constant dense<0.000000e+00> : tensor<f32>
    %119 = graph.constant dense<1.000000e+00> : tensor<f32>
    %120 = graph.cmp lt, %117, %118 : tensor<1x2x4x2xf32>, tensor<f32> -> tensor<1x2x4x2xi1>
    %121 = graph.cmp gt, %117, %119 : tensor<1x2x4x2xf32>, tensor<f32> -> tensor<1x2x4x2xi1>
    %122 = graph.or %120, %121 : tensor<1x2x4x2xi1>
    %123 = graph.constant dense<0.000000e+00> : tensor<f32>
    %124 = graph.select %122, %123, %100 : tensor<1x2x4x2xi1>, tensor<f32>, tensor<1x2x4x2xf32> -> tensor<1x2x4x2xf32>
    %125 = graph.constant dense<0.000000e+00> : tensor<f32>
    %126 = graph.constant dense<1.000000e+00> : tensor<f32>
    %127 = graph.max %117, %125 : tensor<1x2x4x2xf32>, tensor<f32> -> tensor<1x2x4x2xf32>
    %128 = graph.min %127, %126 : tensor<1x2x4x2xf32>, tensor<f32> -> tensor<1x2x4x2xf32>
    %129 = graph.cast %115 : tensor<1x2x4x2xf32> -> tensor<1x2x4x2xi64>
    %130 = graph.constant dense<1> : tensor<i64>
    %131 = graph.mul %129, %130 : tensor<1x2x4x2xi64>, tensor<i64> -> tensor<1x2x4x2xi64>
    %132 = graph.cast %128 : tensor<1x2x4x2xf32> -> tensor<1x2x4x2xi64>
    %133 = graph.constant dense<1> : tensor<i64>
    %134 = graph.mul %132, %133 : tensor<1x2x4x2xi64>, tensor<i64> -> tensor<1x2x4x2xi64>
    %135 = graph.constant dense<0> : tensor<1x1x1x1xi64>
    %136 = graph.transpose %arg0 {perm = array<i64: 0, 2, 3, 4, 1>} : tensor<1x1x3x2x2xf32> -> tensor<1x3x2x2x1xf32>
    %137 = graph.reshape %136 {shape = array<i64: 12, 1>} : tensor<1x3x2x2x1xf32> -> tensor<12x1xf32>
    %138 = graph.add %135, %41 : tensor<1x1x1x1xi64>, tensor<1x2x4x2xi64> -> tensor<1x2x4x2xi64>
    %139 = graph.add %138, %86 : tensor<1x2x4x2xi64>
    %140 = graph.mul %21, %66 : tensor<1x2x4x2xf32>
    %141 = graph.add %139, %131 : tensor<1x2x4x2xi64>
    %142 = graph.mul %140, %111 : tensor<1x2x4x2xf32>
    %143 = graph.gather %137, %141 {axis = 0 : i64} : tensor<12x1xf32>, tensor<1x2x4x2xi64> -> tensor<1x2x4x2x1xf32>
    %144 = graph.reshape %142 {shape = array<i64: 1, 2, 4, 2, 1>} : tensor<1x2x4x2xf32> -> tensor<1x2x4x2x1xf32>
    %145 = graph.mul %143, %144 : tensor<1x2x4x2x1xf32>
    %146 = graph.add %135, %44 : tensor<1x1x1x1xi64>, tensor<1x2x4x2xi64> -> tensor<1x2x4x2xi64>
    %147 = graph.add %146, %86 : tensor<1x2x4x2xi64>
    %148 = graph.mul %34, %66 : tensor<1x2x4x2xf32>
    %149 = graph.add %147, %131 : tensor<1x2x4x2xi64>
    %150 = graph.mul %148, %111 : tensor<1x2x4x2xf32>
    %151 = graph.gather %137, %149 {axis = 0 : i64} : tensor<12x1xf32>, tensor<1x2x4x2xi64> -> tensor<1x2x4x2x1xf32>
    %152 = graph.reshape %150 {shape = array<i64: 1, 2, 4, 2, 1>} : tensor<1x2x4x2xf32> -> tensor<1x2x4x2x1xf32>
    %153 = graph.mul %151, %152 : tensor<1x2x4x2x1xf32>
    %154 = graph.add %145, %153 : tensor<1x2x4x2x1xf32>
    %155 = graph.add %135, %41 : tensor<1x1x1x1xi64>, tensor<1x2x4x2xi64> -> tensor<1x2x4x2xi64>
    %156 = graph.add %155, %89 : tensor<1x2x4x2xi64>
    %157 = graph.mul %21, %79 : tensor<1x2x4x2xf32>
    %158 = graph.add %156, %131 : tensor<1x2x4x2xi64>
    %159 = graph.mul %157, %111 : tensor<1x2x4x2xf32>
    return %159 : tensor<1x2x4x2xf32>
  }
}

