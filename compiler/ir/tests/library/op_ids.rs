//! Op identity by id (`OpNameId`): views and op sets recognise ops by their name's id, and
//! give the same answers as comparing names, whichever came first (the op or the view), for
//! registered and unregistered ops.

use dlc_ir::{define_op, op_set, Context, Dialect, Location, Op, OpNameId, OpSpec, OpView, Traits};

define_op! {
    /// An op of a dialect registered in some contexts only.
    pub struct Ping = "idtest.ping";
    traits = Traits::empty();
    operands = [];
    results = [];
}

define_op! {
    /// Another op of that dialect.
    pub struct Pong = "idtest.pong";
    traits = Traits::empty();
    operands = [];
    results = [];
}

define_op! {
    /// An op never registered anywhere: only a view knows its name.
    pub struct Late = "idtest_late.op";
    traits = Traits::empty();
    operands = [];
    results = [];
}

op_set! {
    /// The test's ops.
    pub enum IdOps { Ping, Pong, Late }
}

fn make(ctx: &mut Context, name: &str) -> Op {
    let spec = OpSpec::new(ctx, name, Location::Unknown);
    ctx.create_op(spec)
}

#[test]
fn views_and_sets_agree_with_names() {
    // An unregistered op made before any view asked for its name has no id yet ...
    let mut ctx = Context::new();
    ctx.allow_unregistered = true;
    let late = make(&mut ctx, "idtest_late.op");
    assert_eq!(ctx.op_name_global_id(late), OpNameId::UNKNOWN);
    // ... and is still recognised by its name.
    assert!(ctx.view::<Late>(late).is_some());
    assert!(ctx.view::<Ping>(late).is_none());
    assert_eq!(IdOps::of(&ctx, late), Some(IdOps::Late(Late(late))));
    // Made after the view type's id was asked for (what viewing any op with an id does), it
    // carries the id.
    let id = <Late as OpView>::name_id();
    let late2 = make(&mut ctx, "idtest_late.op");
    assert_eq!(ctx.op_name_global_id(late2), id);
    assert_eq!(IdOps::of(&ctx, late2), Some(IdOps::Late(Late(late2))));

    // Registered ops get their id at registration.
    let mut reg = Context::new();
    reg.register_dialect(Dialect::new("idtest", vec![Ping::def(), Pong::def()]));
    let ping = make(&mut reg, "idtest.ping");
    let pong = make(&mut reg, "idtest.pong");
    assert_ne!(reg.op_name_global_id(ping), OpNameId::UNKNOWN);
    assert_eq!(reg.op_name_global_id(ping), ctx_free_id("idtest.ping"));
    assert!(reg.view::<Ping>(ping).is_some() && reg.view::<Pong>(ping).is_none());
    assert_eq!(IdOps::of(&reg, pong), Some(IdOps::Pong(Pong(pong))));

    // An op that is none of them, with or without an id.
    reg.allow_unregistered = true;
    let other = make(&mut reg, "idtest.other");
    assert_eq!(IdOps::of(&reg, other), None);
    assert!(reg.view::<Ping>(other).is_none());
}

/// The id a name has now, from any context.
fn ctx_free_id(name: &str) -> OpNameId {
    OpNameId::find(name).expect("the name has an id")
}
