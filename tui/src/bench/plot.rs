//! The picture of `--plot FILE.svg`: wall time and peak live nodes against
//! program size for each scaling family, on log-log axes, with dashed
//! guides of slope 1 (linear) and 2 (quadratic), so that a family's growth
//! reads off at a glance; the legend gives each family's fitted exponent.

use std::path::Path;

use plotters::prelude::*;

use super::scale::{growth, Family};

/// Which measure a panel shows.
#[derive(Clone, Copy)]
enum Measure {
    Time,
    Memory,
}

impl Measure {
    fn value(self, p: &super::scale::Point) -> f64 {
        match self {
            Measure::Time => p.wall_s.max(1e-6),
            Measure::Memory => (p.peak as f64).max(1.0),
        }
    }
    fn slope(self, f: &Family) -> Option<f64> {
        match self {
            Measure::Time => f.time_slope(),
            Measure::Memory => f.memory_slope(),
        }
    }
}

/// Draws the families into the SVG file `path`.
pub fn draw(path: &Path, families: &[Family]) -> Result<(), String> {
    let fail = |e: String| format!("cannot draw `{}`: {e}", path.display());
    let root = SVGBackend::new(path, (1280, 560)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| fail(e.to_string()))?;
    let (left, right) = root.split_horizontally(640);
    panel(&left, families, Measure::Time).map_err(fail)?;
    panel(&right, families, Measure::Memory).map_err(fail)?;
    root.present().map_err(|e| fail(e.to_string()))?;
    Ok(())
}

fn panel(area: &DrawingArea<SVGBackend<'_>, plotters::coord::Shift>, families: &[Family], m: Measure) -> Result<(), String> {
    let e = |e: DrawingAreaErrorKind<_>| e.to_string();
    let points = families.iter().flat_map(|f| f.points.iter());
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for p in points {
        x0 = x0.min(p.size as f64);
        x1 = x1.max(p.size as f64);
        y0 = y0.min(m.value(p));
        y1 = y1.max(m.value(p));
    }
    if x0 > x1 {
        (x0, x1, y0, y1) = (1.0, 10.0, 1.0, 10.0);
    }
    let (x0, x1, y0, y1) = (x0 / 1.5, x1 * 1.5, y0 / 2.0, y1 * 2.0);
    // Head room above the data for the legend (upper left): the top 40% of
    // the log-scaled height, so that it covers no curve.
    let (y_data, y1) = (y1, y1 * (y1 / y0).powf(0.7));
    let (caption, y_desc) = match m {
        Measure::Time => ("wall time against size", "wall time (s)"),
        Measure::Memory => ("peak live nodes against size", "peak live graph nodes"),
    };
    let mut chart = ChartBuilder::on(area)
        .caption(caption, ("sans-serif", 22))
        .margin(12)
        .x_label_area_size(44)
        .y_label_area_size(72)
        .build_cartesian_2d((x0..x1).log_scale(), (y0..y1).log_scale())
        .map_err(e)?;
    chart
        .configure_mesh()
        .x_desc("size (N, or 2^D for a tree of depth D)")
        .y_desc(y_desc)
        .x_label_formatter(&|v| short(*v))
        .y_label_formatter(&|v| short(*v))
        .draw()
        .map_err(e)?;
    // Guides through the smallest size's smallest value: y ∝ x and y ∝ x².
    let start = families
        .iter()
        .filter_map(|f| f.points.first())
        .map(|p| (p.size as f64, m.value(p)))
        .fold(None, |acc: Option<(f64, f64)>, p| match acc {
            Some(a) if a.1 <= p.1 => Some(a),
            _ => Some(p),
        });
    if let Some((gx, gy)) = start {
        for (k, label) in [(1.0, "slope 1 (linear)"), (2.0, "slope 2 (quadratic)")] {
            let steps = 64;
            let guide: Vec<(f64, f64)> = (0..=steps)
                .map(|i| gx * (x1 / gx).powf(f64::from(i) / f64::from(steps)))
                .map(|x| (x, gy * (x / gx).powf(k)))
                .filter(|&(_, y)| y <= y_data)
                .collect();
            let grey = if k == 1.0 { RGBColor(150, 150, 150) } else { RGBColor(90, 90, 90) };
            chart
                .draw_series(DashedLineSeries::new(guide, 6, 4, grey.stroke_width(1)))
                .map_err(e)?
                .label(label)
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], grey.stroke_width(1)));
        }
    }
    for (i, f) in families.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        let data: Vec<(f64, f64)> = f.points.iter().map(|p| (p.size as f64, m.value(p))).collect();
        let label = match m.slope(f) {
            Some(k) => format!("{} ({} ∝ {}^{k:.2}, {})", f.name, short_measure(m), f.size, growth(k)),
            None => f.name.clone(),
        };
        chart
            .draw_series(LineSeries::new(data.clone(), color.stroke_width(2)))
            .map_err(e)?
            .label(label)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], color.stroke_width(2)));
        chart
            .draw_series(data.into_iter().map(|p| Circle::new(p, 3, color.filled())))
            .map_err(e)?;
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
        .map_err(e)?;
    Ok(())
}

fn short_measure(m: Measure) -> &'static str {
    match m {
        Measure::Time => "time",
        Measure::Memory => "nodes",
    }
}

/// An axis label: `1e-3`, `100`, `10k`, `1M`.
fn short(v: f64) -> String {
    if v >= 1e6 {
        format!("{}M", trim(v / 1e6))
    } else if v >= 1e3 {
        format!("{}k", trim(v / 1e3))
    } else if v >= 1.0 {
        trim(v)
    } else {
        format!("{v:.0e}")
    }
}

fn trim(v: f64) -> String {
    let s = format!("{v:.1}");
    s.strip_suffix(".0").map(str::to_string).unwrap_or(s)
}
