//! Scratch timing of the parallel driver (not committed).
use deepcps_machine::graph::par::Parallel;
use deepcps_machine::graph::Machine;
use deepcps_machine::run::Limits;
use deepcps_machine::span::SourceMap;
use deepcps_machine::syntax::{load_program, RealFs};
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let path = std::path::Path::new(&args[1]);
    let threads: usize = args[2].parse().unwrap();
    let eager = args.get(3).is_some();
    let program = load_program(&RealFs, path, &mut SourceMap::new()).unwrap_or_else(|_| panic!("load"));
    let par = if eager { Parallel::eager(threads) } else { Parallel::new(threads) }.unwrap();
    let t = std::time::Instant::now();
    let mut m = Machine::new(program);
    let limits = Limits {
        max_steps: u64::MAX,
        ..Limits::default()
    };
    let r = m.report_par(&limits, &par);
    eprintln!(
        "{:?} {} {:.3}s {:?} peak {}",
        r.counts,
        r.text.len(),
        t.elapsed().as_secs_f64(),
        m.par_stats(),
        m.peak_live_nodes()
    );
    println!("{}", r.text.chars().take(200).collect::<String>());
}
