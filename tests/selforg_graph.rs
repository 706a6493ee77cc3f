#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! SelfOrg pure-math core: docs/design/selforg.md §1.7–§1.9, §1.11, §1.14 test vectors, §1.15 edge
//! cases. Agents are 0-indexed here; the design note's §1.14 numbers agents from 1.

use colony::policy::selforg::reasoning::{
    aggregate, build_graph, build_graph_from, contributions, early_stop, s_min, similarity, Graph,
    GraphOptions, Rule,
};
use ndarray::{array, Array2};

fn opts(rule: Rule) -> GraphOptions {
    GraphOptions {
        rule,
        ..GraphOptions::default()
    }
}

fn close(a: &[f64], b: &[f64], tol: f64) {
    assert_eq!(a.len(), b.len(), "{a:?} vs {b:?}");
    for (x, y) in a.iter().zip(b) {
        assert!((x - y).abs() <= tol, "{a:?} vs {b:?}");
    }
}

fn vec1() -> Array2<f32> {
    array![
        [1.0f32, 0.1, 0.0, 0.2],
        [0.9, 0.3, 0.1, 0.0],
        [0.2, 1.0, 0.1, 0.0],
        [0.7, 0.5, 0.6, 0.1]
    ]
}

fn vec2() -> Array2<f32> {
    array![
        [-0.3198f32, 0.1499, -0.5597, -0.7496],
        [-0.6291, -0.1198, -0.2097, -0.7389],
        [-0.7429, 0.0602, -0.5321, -0.4016],
        [-0.2298, 0.1099, -0.2998, -0.9194]
    ]
}

#[test]
fn defaults_match_spec() {
    let o = GraphOptions::default();
    assert_eq!(o.rule, Rule::Alg2);
    assert_eq!(o.k, 2);
    assert_eq!(o.tau, 0.5);
}

#[test]
fn vector1_similarity_and_psi() {
    let r = vec1();
    let s = similarity(r.view());
    let expect = [
        [1.0000, 0.9514, 0.2857, 0.7132],
        [0.9514, 1.0000, 0.5013, 0.8358],
        [0.2857, 0.5013, 1.0000, 0.6484],
        [0.7132, 0.8358, 0.6484, 1.0000],
    ];
    for (row, want) in s.rows().into_iter().zip(&expect) {
        close(&row.to_vec(), want, 1e-4);
    }
    close(
        &contributions(r.view()),
        &[0.8563, 0.9544, 0.7068, 0.9280],
        1e-4,
    );
    assert!((s_min(s.view()).unwrap() - 0.2857).abs() < 1e-4);
    assert!(early_stop(s.view(), Some(0.28)));
    assert!(!early_stop(s.view(), Some(0.3)));
}

#[test]
fn vector1_alg2() {
    let g = build_graph(vec1().view(), &opts(Rule::Alg2)).unwrap();
    // Spec: removed 1->2, 1->4, 4->2 (1-indexed).
    assert_eq!(g.removed, vec![(0, 1), (0, 3), (3, 1)]);
    // Spec: final edges 2->1, 2->3, 2->4, 4->1, 4->3.
    assert_eq!(g.edges, vec![(1, 0), (1, 2), (1, 3), (3, 0), (3, 2)]);
    assert_eq!(g.order, vec![1, 3, 0, 2]);
    assert_eq!(g.leader, 1);
    assert_eq!(g.parents(0), vec![1, 3]);
    assert_eq!(g.parents(1), Vec::<usize>::new());
    assert_eq!(g.parents_by_psi(2), vec![1, 3]);
    assert_eq!(g.children(1), vec![0, 2, 3]);
}

#[test]
fn vector1_gated_same_graph_and_aggregate() {
    let r = vec1();
    let a2 = build_graph(r.view(), &opts(Rule::Alg2)).unwrap();
    let g = build_graph(r.view(), &opts(Rule::Gated)).unwrap();
    assert_eq!(g.edges, a2.edges);
    assert_eq!(g.order, a2.order);
    assert_eq!(g.leader, a2.leader);
    assert!(
        g.removed.is_empty(),
        "gated graphs are acyclic by construction"
    );
    let agg = aggregate(r.view(), &g.psi).unwrap();
    assert_eq!(agg.nstar, 1);
    close(&agg.cos, &[0.8738, 0.9638, 0.6755, 0.9292], 1e-4);
    assert!(!agg.uniform_weights && !agg.all_empty);
}

#[test]
fn vector2_similarity_and_psi() {
    let r = vec2();
    let s = similarity(r.view());
    let expect = [
        [1.0000, 0.8545, 0.8455, 0.9470],
        [0.8545, 1.0000, 0.8685, 0.8736],
        [0.8455, 0.8685, 1.0000, 0.7061],
        [0.9470, 0.8736, 0.7061, 1.0000],
    ];
    for (row, want) in s.rows().into_iter().zip(&expect) {
        close(&row.to_vec(), want, 1e-4);
    }
    close(
        &contributions(r.view()),
        &[0.9681, 0.9547, 0.9079, 0.9362],
        1e-4,
    );
}

#[test]
fn vector2_variants_differ() {
    let r = vec2();
    let g = build_graph(r.view(), &opts(Rule::Alg2)).unwrap();
    // Spec: removed 3->2 (cycle [1,3,2]), 4->1 (cycle [1,4]), 4->2 (cycle [1,4,2]).
    assert_eq!(g.removed, vec![(2, 1), (3, 0), (3, 1)]);
    // Spec: final edges 1->3, 1->4, 2->1, 2->3, 2->4; pi = [2, 1, 4, 3]; leader 2.
    assert_eq!(g.edges, vec![(0, 2), (0, 3), (1, 0), (1, 2), (1, 3)]);
    assert_eq!(g.order, vec![1, 0, 3, 2]);
    assert_eq!(g.leader, 1, "Alg2 leader is not the psi maximum here");

    let h = build_graph(r.view(), &opts(Rule::Gated)).unwrap();
    // Spec: edges 1->2, 1->3, 1->4, 2->3, 2->4; pi = [1, 2, 4, 3]; leader 1.
    assert_eq!(h.edges, vec![(0, 1), (0, 2), (0, 3), (1, 2), (1, 3)]);
    assert_eq!(h.order, vec![0, 1, 3, 2]);
    assert_eq!(h.leader, 0);
    assert!(h.removed.is_empty());

    for psi in [&g.psi, &h.psi] {
        let agg = aggregate(r.view(), psi).unwrap();
        assert_eq!(agg.nstar, 0);
        close(&agg.cos, &[0.9686, 0.9546, 0.9062, 0.9376], 1e-4);
    }
}

#[test]
fn psi_identity_from_similarity() {
    // §1.7: for unit rows, psi[n] = rowsum(S)[n] / sqrt(sum(S)).
    let r = vec2();
    let s = similarity(r.view());
    let total = s.sum().sqrt();
    let via_s: Vec<f64> = s.rows().into_iter().map(|row| row.sum() / total).collect();
    close(&contributions(r.view()), &via_s, 1e-9);
}

#[test]
fn hand_two_cycles_removed_in_order() {
    // N = 3, no k limit, tau = 0.5. S01 = 0.9, S02 = 0.6, S12 = 0.3; psi = [0.9, 0.7, 0.8].
    // Cand(0) = {1, 2}, Cand(1) = {0}, Cand(2) = {0}
    //   → edges 0→1, 0→2, 1→0, 2→0.
    // DFS from 0 visits 1 first, 1→0 closes cycle [0, 1]; min psi at position 1 (agent 1)
    //   → remove 1→0. Restart: 0→1 (1 is a sink), 0→2, 2→0 closes [0, 2]; min psi is agent 2
    //   → remove 2→0. Final edges 0→1, 0→2. Kahn: 0, then ready {1 (0.7), 2 (0.8)} → 2, 1.
    let s = array![[1.0, 0.9, 0.6], [0.9, 1.0, 0.3], [0.6, 0.3, 1.0]];
    let o = GraphOptions {
        rule: Rule::Alg2,
        k: 0,
        tau: 0.5,
    };
    let g = build_graph_from(s.view(), &[0.9, 0.7, 0.8], &o).unwrap();
    assert_eq!(g.removed, vec![(1, 0), (2, 0)]);
    assert_eq!(g.edges, vec![(0, 1), (0, 2)]);
    assert_eq!(g.order, vec![0, 2, 1]);
    assert_eq!(g.leader, 0);
}

#[test]
fn hand_topk_and_order_ties() {
    // N = 4; agent 0 is 0.8-similar to 1, 2, 3, which are mutually 0.0. psi = [0.1, 0.5, 0.7, 0.7].
    // k = 2: Cand(0) = {1, 2, 3} all at 0.8 → psi desc: 2 (0.7), 3 (0.7, id tie), 1 → keep {2, 3}.
    // Cand(1) = Cand(2) = Cand(3) = {0}. Edges: 0→1, 0→2, 0→3, 2→0, 3→0.
    // DFS from 0: 1 is a sink; 0→2→0 closes [0, 2] → weaker is 0 → remove 0→2; restart:
    // [0, 3] → remove 0→3. Final: 0→1, 2→0, 3→0.
    // Kahn: ready {2, 3} tie at 0.7 → 2, 3; then 0; then 1.
    let s = array![
        [1.0, 0.8, 0.8, 0.8],
        [0.8, 1.0, 0.0, 0.0],
        [0.8, 0.0, 1.0, 0.0],
        [0.8, 0.0, 0.0, 1.0]
    ];
    let psi = [0.1, 0.5, 0.7, 0.7];
    let g = build_graph_from(s.view(), &psi, &GraphOptions::default()).unwrap();
    assert_eq!(g.removed, vec![(0, 2), (0, 3)]);
    assert_eq!(g.edges, vec![(0, 1), (2, 0), (3, 0)]);
    assert_eq!(g.order, vec![2, 3, 0, 1]);
    assert_eq!(g.leader, 2);
    // Gated: 0 may listen to 1, 2, 3 (all stronger) → top-2 {2, 3}; 1, 2, 3 may not listen to 0.
    let h = build_graph_from(s.view(), &psi, &opts(Rule::Gated)).unwrap();
    assert!(h.removed.is_empty());
    assert_eq!(h.edges, vec![(2, 0), (3, 0)]);
    assert_eq!(h.order, vec![2, 3, 1, 0]);
    assert_eq!(h.leader, 2);
}

#[test]
fn tau_is_inclusive() {
    // S01 = 0.5 exactly = tau → edges both ways → 2-cycle; psi tie → first position (0) is
    // the weaker one → remove 0→1. Order: 1 (source), then 0.
    let s = array![[1.0, 0.5], [0.5, 1.0]];
    let g = build_graph_from(s.view(), &[0.5, 0.5], &GraphOptions::default()).unwrap();
    assert_eq!(g.removed, vec![(0, 1)]);
    assert_eq!(g.edges, vec![(1, 0)]);
    assert_eq!(g.order, vec![1, 0]);
    let s = array![[1.0, 0.4999], [0.4999, 1.0]];
    let g = build_graph_from(s.view(), &[0.5, 0.5], &GraphOptions::default()).unwrap();
    assert!(g.edges.is_empty());
    assert_eq!(g.order, vec![0, 1]);
}

#[test]
fn single_agent() {
    let r = array![[0.3f32, 0.4]];
    let g = build_graph(r.view(), &GraphOptions::default()).unwrap();
    close(&g.psi, &[1.0], 1e-12);
    assert!(g.edges.is_empty() && g.removed.is_empty());
    assert_eq!(g.order, vec![0]);
    assert_eq!(g.leader, 0);
    let s = similarity(r.view());
    assert_eq!(s_min(s.view()), None);
    assert!(!early_stop(s.view(), Some(0.0)));
    assert_eq!(aggregate(r.view(), &g.psi).unwrap().nstar, 0);
}

#[test]
fn zero_vector_agent() {
    // Agent 1's response is empty (zero row): cos 0 with everyone, psi 0, no edges, and it is
    // excluded from the aggregate's argmax.
    let r = array![[1.0f32, 0.0], [0.0, 0.0], [1.0, 0.1]];
    let s = similarity(r.view());
    assert_eq!(s.row(1).to_vec(), vec![0.0, 0.0, 0.0]);
    let g = build_graph(r.view(), &GraphOptions::default()).unwrap();
    assert_eq!(g.psi[1], 0.0);
    assert!(g.parents(1).is_empty() && g.children(1).is_empty());
    assert_eq!(*g.order.last().unwrap(), 1);
    let agg = aggregate(r.view(), &g.psi).unwrap();
    assert_ne!(agg.nstar, 1);
    assert_eq!(agg.cos[1], 0.0);
}

#[test]
fn all_zero_vectors() {
    let r = Array2::<f32>::zeros((3, 4));
    let g = build_graph(r.view(), &GraphOptions::default()).unwrap();
    assert_eq!(g.psi, vec![0.0; 3]);
    assert!(g.edges.is_empty());
    assert_eq!(g.order, vec![0, 1, 2]);
    let agg = aggregate(r.view(), &g.psi).unwrap();
    assert!(agg.all_empty && agg.uniform_weights);
    assert_eq!(agg.nstar, 0);
}

#[test]
fn duplicate_rows() {
    // r0 = r1 = (1, 0), r2 = (0, 1). S01 = 1, S02 = S12 = 0.
    // r_avg = (2/3, 1/3): psi0 = psi1 = 2/√5, psi2 = 1/√5.
    // Alg2: 0→1 and 1→0; cycle [0, 1] with equal psi → first position → remove 0→1.
    // Order: ready {1 (0.894), 2 (0.447)} → 1; then {0, 2} → 0, 2.
    let r = array![[1.0f32, 0.0], [1.0, 0.0], [0.0, 1.0]];
    let g = build_graph(r.view(), &GraphOptions::default()).unwrap();
    let a = 2.0 / 5f64.sqrt();
    close(&g.psi, &[a, a, 1.0 / 5f64.sqrt()], 1e-12);
    assert_eq!(g.removed, vec![(0, 1)]);
    assert_eq!(g.edges, vec![(1, 0)]);
    assert_eq!(g.order, vec![1, 0, 2]);
    assert_eq!(g.leader, 1);
    // Gated: strict psi[m] > psi[n] → no edge between equals; order by psi then id.
    let h = build_graph(r.view(), &opts(Rule::Gated)).unwrap();
    assert!(h.edges.is_empty() && h.removed.is_empty());
    assert_eq!(h.order, vec![0, 1, 2]);
    assert_eq!(h.leader, 0);
    // Aggregate: 0 and 1 tie on cos and psi → lower id.
    assert_eq!(aggregate(r.view(), &g.psi).unwrap().nstar, 0);
}

#[test]
fn json_shape() {
    let g = Graph {
        psi: vec![0.5, 0.25],
        edges: vec![(1, 0)],
        order: vec![1, 0],
        leader: 1,
        removed: vec![(0, 1)],
    };
    let v = serde_json::to_value(&g).unwrap();
    assert_eq!(
        v,
        serde_json::json!({"psi": [0.5, 0.25], "edges": [[1, 0]], "order": [1, 0],
                           "leader": 1, "removed": [[0, 1]]})
    );
    let back: Graph = serde_json::from_value(v).unwrap();
    assert_eq!(back, g);
}

#[test]
fn gated_never_needs_cycle_removal() {
    // Random-ish 6-agent embeddings: the gated graph is acyclic by construction and its leader
    // is the global psi maximum (§1.9.4).
    let r = array![
        [0.9f32, 0.1, 0.3],
        [0.8, 0.2, 0.1],
        [0.7, 0.6, 0.0],
        [0.2, 0.9, 0.4],
        [0.5, 0.5, 0.5],
        [0.1, 0.3, 0.9]
    ];
    for k in [0, 1, 2, 3] {
        let o = GraphOptions {
            rule: Rule::Gated,
            k,
            tau: 0.3,
        };
        let g = build_graph(r.view(), &o).unwrap();
        assert!(g.removed.is_empty());
        let best = (0..6)
            .max_by(|&a, &b| g.psi[a].total_cmp(&g.psi[b]).then(b.cmp(&a)))
            .unwrap();
        assert_eq!(g.leader, best);
        // Every edge goes to a strictly weaker agent and respects the order.
        for &(m, n) in &g.edges {
            assert!(g.psi[m] > g.psi[n]);
            let pm = g.order.iter().position(|&x| x == m).unwrap();
            let pn = g.order.iter().position(|&x| x == n).unwrap();
            assert!(pm < pn);
        }
        let a2 = build_graph(
            r.view(),
            &GraphOptions {
                rule: Rule::Alg2,
                ..o
            },
        )
        .unwrap();
        for &(m, n) in &a2.edges {
            let pm = a2.order.iter().position(|&x| x == m).unwrap();
            let pn = a2.order.iter().position(|&x| x == n).unwrap();
            assert!(pm < pn);
        }
        for &(m, n) in &a2.removed {
            assert!(a2.psi[m] <= a2.psi[n]);
        }
    }
}
