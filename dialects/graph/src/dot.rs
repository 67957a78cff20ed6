//! Graphviz output for graph functions (`dlc-opt --emit=dot`).
//!
//! Each `func.func` becomes one `digraph` named after the function: its arguments are input
//! nodes (ellipses) labelled with their name and type, every op is a box labelled with its name
//! and result types, `func.return` is an output node, and each SSA use is an edge from the
//! producer to the user (labelled with the operand index when the user takes several operands,
//! so `sub` and `div` read the right way round). The ops of a `graph.fusion` are drawn inside a
//! `subgraph cluster_N`; the fusion op itself is no node: its block arguments stand for its
//! operands and its results for the values its `graph.yield` returns, so edges run straight from
//! the producers outside to the users inside and back out.
//!
//! All edges are written after all nodes, at the top level: an edge written inside a cluster
//! would pull its outside endpoint into that cluster.

use crate::ops::{FusionOp, GraphOps};
use dlc_func::{FuncOp, ReturnOp};
use dlc_ir::{Context, Op, OpView, Printer, Value};
use std::collections::HashMap;
use std::fmt::Write;

/// The Graphviz text of every `func.func` in `root` (or of `root` itself if it is one).
pub fn print_dot(ctx: &Context, root: Op) -> String {
    let mut funcs = Vec::new();
    ctx.for_each_op(root, &mut |op| {
        if ctx.view::<FuncOp>(op).is_some() && !ctx.blocks(ctx.region(op, 0)).is_empty() {
            funcs.push(op);
        }
    });
    let mut out = String::new();
    for func in funcs {
        FuncGraph::new(ctx).print(func, &mut out);
    }
    out
}

/// The nodes and edges of one function while it is printed.
struct FuncGraph<'a> {
    ctx: &'a Context,
    /// The node that stands for each value.
    node_of: HashMap<Value, String>,
    /// `(from, to, operand index or None)`.
    edges: Vec<(String, String, Option<usize>)>,
    ops: usize,
    clusters: usize,
}

impl<'a> FuncGraph<'a> {
    fn new(ctx: &'a Context) -> Self {
        FuncGraph {
            ctx,
            node_of: HashMap::new(),
            edges: Vec::new(),
            ops: 0,
            clusters: 0,
        }
    }

    fn print(mut self, func: Op, out: &mut String) {
        let ctx = self.ctx;
        let name = dlc_ir::symbol::symbol_name(ctx, func).unwrap_or("func");
        let _ = writeln!(out, "digraph {} {{", quote(name));
        out.push_str("  graph [fontname=\"Helvetica\", fontsize=10];\n");
        out.push_str("  node [fontname=\"Helvetica\", fontsize=10];\n");
        out.push_str("  edge [fontname=\"Helvetica\", fontsize=9];\n");
        let entry = ctx.blocks(ctx.region(func, 0))[0];
        for (i, &arg) in ctx.block_args(entry).iter().enumerate() {
            let id = format!("arg{i}");
            let label = format!("%arg{i}\\n{}", self.type_text(arg));
            let _ = writeln!(out, "  {id} [shape=ellipse, label={}];", quote(&label));
            self.node_of.insert(arg, id);
        }
        for op in ctx.block_ops(entry) {
            self.print_op(op, out, 1);
        }
        for (from, to, index) in &self.edges {
            match index {
                Some(i) => {
                    let _ = writeln!(out, "  {from} -> {to} [label=\"{i}\"];");
                }
                None => {
                    let _ = writeln!(out, "  {from} -> {to};");
                }
            }
        }
        out.push_str("}\n");
    }

    fn print_op(&mut self, op: Op, out: &mut String, depth: usize) {
        let ctx = self.ctx;
        let indent = "  ".repeat(depth);
        let is_return = ctx.view::<ReturnOp>(op).is_some();
        match GraphOps::of(ctx, op) {
            Some(GraphOps::FusionOp(_)) if ctx.regions(op).len() == 1 => {
                let region = ctx.region(op, 0);
                let Some(&body) = ctx.blocks(region).first() else {
                    return;
                };
                // Block arguments are the fusion's operands.
                for (&arg, &operand) in ctx.block_args(body).iter().zip(ctx.operands(op)) {
                    if let Some(node) = self.node_of.get(&operand).cloned() {
                        self.node_of.insert(arg, node);
                    }
                }
                let _ = writeln!(out, "{indent}subgraph cluster_{} {{", self.clusters);
                self.clusters += 1;
                let _ = writeln!(out, "{indent}  label=\"{}\";", FusionOp::NAME);
                let _ = writeln!(out, "{indent}  style=rounded;");
                for inner in ctx.block_ops(body) {
                    self.print_op(inner, out, depth + 1);
                }
                let _ = writeln!(out, "{indent}}}");
                // Results are the yielded values.
                if let Some(term) = ctx.last_op(body) {
                    let results: Vec<Value> = ctx.results(op).collect();
                    for (r, &y) in results.iter().zip(ctx.operands(term)) {
                        if let Some(node) = self.node_of.get(&y).cloned() {
                            self.node_of.insert(*r, node);
                        }
                    }
                }
            }
            Some(GraphOps::YieldOp(_)) => {}
            _ => {
                let name = ctx.op_name(op);
                let id = if is_return {
                    "return".to_string()
                } else {
                    let id = format!("n{}", self.ops);
                    self.ops += 1;
                    id
                };
                let label = if is_return {
                    "return".to_string()
                } else {
                    let types: Vec<String> = ctx.results(op).map(|v| self.type_text(v)).collect();
                    if types.is_empty() {
                        name.to_string()
                    } else {
                        format!("{name}\\n{}", types.join(", "))
                    }
                };
                let shape = if is_return { "ellipse" } else { "box" };
                let _ = writeln!(
                    out,
                    "{indent}{id} [shape={shape}, label={}];",
                    quote(&label)
                );
                let operands = ctx.operands(op);
                let numbered = operands.len() > 1;
                for (i, v) in operands.iter().enumerate() {
                    if let Some(from) = self.node_of.get(v) {
                        self.edges
                            .push((from.clone(), id.clone(), numbered.then_some(i)));
                    }
                }
                for r in ctx.results(op) {
                    self.node_of.insert(r, id.clone());
                }
            }
        }
    }

    fn type_text(&self, v: Value) -> String {
        Printer::new(self.ctx).type_to_string(self.ctx.value_type(v))
    }
}

/// A Graphviz double-quoted string (`\n` escapes in `s` are kept as line breaks).
fn quote(s: &str) -> String {
    let mut q = String::with_capacity(s.len() + 2);
    q.push('"');
    for c in s.chars() {
        if c == '"' {
            q.push('\\');
        }
        q.push(c);
    }
    q.push('"');
    q
}
