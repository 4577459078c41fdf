//! SVG plots (plotters' SVG backend: no system fonts needed; the viewer renders the text).
//!
//! - latency over time: per-second p50, p99 and max, with throughput per second below;
//! - latency distribution: operations per latency bucket up to p99.9, with mean, p50, p99 and
//!   the right tail's standard deviation marked;
//! - throughput vs callers (sweeps): ops/s per concurrency, one line per pool size, and
//!   raw-limit when it was measured; p50/p99 below.

use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::error::BenchResult;
use crate::report::RunRecord;

const SIZE: (u32, u32) = (1000, 760);
const PALETTE: [RGBColor; 6] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(148, 103, 189),
    RGBColor(255, 127, 14),
    RGBColor(23, 190, 207),
];

fn err<E: std::fmt::Display>(what: &str) -> impl FnOnce(E) -> String + '_ {
    move |e| format!("plotting {what}: {e}")
}

fn title(record: &RunRecord, what: &str) -> String {
    let p = &record.params;
    format!(
        "{what}: {} {} callers={} pool={}",
        p["workload"].as_str().unwrap_or("?"),
        p["mode"].as_str().unwrap_or("?"),
        p["concurrency"],
        p["pool_size"]
    )
}

/// Reads one figure of a per-second point.
type PointValue = fn(&crate::report::SecondPoint) -> u64;

/// The per-second points, without a last second the phase did not fill (it would look like a
/// drop in throughput). Short runs keep everything.
fn full_seconds(record: &RunRecord) -> Vec<crate::report::SecondPoint> {
    let full = record.result.elapsed_s.floor() as u64;
    let points = &record.result.per_second;
    if full == 0 {
        return points.clone();
    }
    points.iter().filter(|p| p.t_s < full).cloned().collect()
}

/// Per-second p50/p99/max latency, and ops per second below it.
pub(crate) fn latency_over_time(path: &Path, record: &RunRecord) -> BenchResult<()> {
    let root = SVGBackend::new(path, SIZE).into_drawing_area();
    root.fill(&WHITE).map_err(err("background"))?;
    let (upper, lower) = root.split_vertically(SIZE.1 * 62 / 100);
    let points = full_seconds(record);
    let points = &points[..];
    let t_max = (points.len() as f64).max(1.0);
    let y_max = points.iter().map(|p| p.max_us).max().unwrap_or(1).max(2) as f64 * 1.5;
    let mut chart = ChartBuilder::on(&upper)
        .caption(title(record, "latency over time"), ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(35)
        .y_label_area_size(70)
        .build_cartesian_2d(0f64..t_max, (1f64..y_max).log_scale())
        .map_err(err("latency over time"))?;
    chart
        .configure_mesh()
        .x_desc("seconds since the measured phase began")
        .y_desc("latency (us, log)")
        .y_label_formatter(&|v| format!("{v:.0}"))
        .draw()
        .map_err(err("mesh"))?;
    let series: [(&str, PointValue, RGBColor); 3] = [
        ("p50", |p| p.p50_us, PALETTE[0]),
        ("p99", |p| p.p99_us, PALETTE[1]),
        ("max", |p| p.max_us, PALETTE[3]),
    ];
    for (name, value, color) in series {
        let line: Vec<(f64, f64)> = points
            .iter()
            .filter(|p| p.ops > 0)
            .map(|p| (p.t_s as f64 + 0.5, value(p).max(1) as f64))
            .collect();
        chart
            .draw_series(LineSeries::new(line.clone(), color.stroke_width(2)))
            .map_err(err("series"))?
            .label(name)
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
            });
        chart
            .draw_series(
                line.into_iter()
                    .map(|xy| Circle::new(xy, 2, color.filled())),
            )
            .map_err(err("points"))?;
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .position(SeriesLabelPosition::UpperRight)
        .draw()
        .map_err(err("legend"))?;
    throughput_panel(&lower, record, t_max)?;
    root.present().map_err(err("latency over time"))?;
    Ok(())
}

fn throughput_panel(
    area: &DrawingArea<SVGBackend<'_>, Shift>,
    record: &RunRecord,
    t_max: f64,
) -> BenchResult<()> {
    let points = full_seconds(record);
    let ops_max = points.iter().map(|p| p.ops).max().unwrap_or(1).max(1) as f64 * 1.15;
    let mut chart = ChartBuilder::on(area)
        .margin(12)
        .x_label_area_size(35)
        .y_label_area_size(70)
        .build_cartesian_2d(0f64..t_max, 0f64..ops_max)
        .map_err(err("throughput"))?;
    chart
        .configure_mesh()
        .x_desc("seconds")
        .y_desc("ops in that second")
        .y_label_formatter(&|v| format!("{v:.0}"))
        .draw()
        .map_err(err("mesh"))?;
    chart
        .draw_series(LineSeries::new(
            points.iter().map(|p| (p.t_s as f64 + 0.5, p.ops as f64)),
            PALETTE[2].stroke_width(2),
        ))
        .map_err(err("throughput"))?;
    Ok(())
}

/// Operations per latency bucket (linear buckets up to p99.9), with markers.
pub(crate) fn latency_distribution(path: &Path, record: &RunRecord) -> BenchResult<()> {
    let h = &record.result.histogram;
    let l = &record.result.latency;
    let root = SVGBackend::new(path, SIZE).into_drawing_area();
    root.fill(&WHITE).map_err(err("background"))?;
    // Geometric buckets from the fastest to the slowest operation, on a log axis, so both the
    // body and the tail stay readable.
    const BUCKETS: usize = 100;
    let lo = (l.min_us.max(1) as f64 * 0.9).max(0.9);
    let hi = (l.max_us.max(2) as f64 * 1.1).max(lo * 2.0);
    let ratio = (hi / lo).powf(1.0 / BUCKETS as f64);
    let mut counts = vec![0u64; BUCKETS];
    for v in h.iter_recorded() {
        let x = h.median_equivalent(v.value_iterated_to()).max(1) as f64;
        let b = ((x / lo).ln() / ratio.ln())
            .floor()
            .clamp(0.0, (BUCKETS - 1) as f64) as usize;
        counts[b] += v.count_at_value();
    }
    let tallest = counts.iter().copied().max().unwrap_or(1).max(1) as f64;
    let c_max = tallest * 1.5;
    let caption = title(record, "latency distribution");
    let mut chart = ChartBuilder::on(&root)
        .caption(caption, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(80)
        .build_cartesian_2d((lo..hi).log_scale(), 0f64..c_max)
        .map_err(err("distribution"))?;
    chart
        .configure_mesh()
        .x_desc(format!(
            "latency (us, log; {BUCKETS} geometric buckets, each {:.1}% wide); {} ops, max {} us",
            (ratio - 1.0) * 100.0,
            l.count,
            l.max_us
        ))
        .y_desc("operations")
        .x_label_formatter(&|v| format!("{v:.0}"))
        .y_label_formatter(&|v| format!("{v:.0}"))
        .draw()
        .map_err(err("mesh"))?;
    chart
        .draw_series(
            counts
                .iter()
                .enumerate()
                .filter(|(_, &c)| c > 0)
                .map(|(i, &c)| {
                    let x0 = lo * ratio.powi(i as i32);
                    Rectangle::new(
                        [(x0, 0.0), (x0 * ratio, c as f64)],
                        PALETTE[0].mix(0.6).filled(),
                    )
                }),
        )
        .map_err(err("bars"))?;
    let marks = [
        ("mean", l.mean_us, PALETTE[2]),
        ("p50", l.p50_us as f64, PALETTE[0]),
        ("p99", l.p99_us as f64, PALETTE[1]),
    ];
    for (name, x, color) in marks {
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![(x, 0.0), (x, tallest * 1.15)],
                color.stroke_width(2),
            )))
            .map_err(err("marker"))?
            .label(format!("{name} = {x:.0} us"))
            .legend(move |(px, py)| {
                PathElement::new(vec![(px, py), (px + 20, py)], color.stroke_width(2))
            });
    }
    // The right tail's standard deviation, as a bracket from p50 to p50 + sigma.
    let p50 = l.p50_us as f64;
    let sigma = l.right_tail_stddev_us;
    let y = tallest * 1.08;
    let tail_color = PALETTE[4];
    chart
        .draw_series(std::iter::once(PathElement::new(
            vec![(p50, y), (p50 + sigma, y)],
            tail_color.stroke_width(3),
        )))
        .map_err(err("tail"))?
        .label(format!(
            "right-tail stddev = {sigma:.1} us (stddev {:.1} us)",
            l.stddev_us
        ))
        .legend(move |(px, py)| {
            PathElement::new(vec![(px, py), (px + 20, py)], tail_color.stroke_width(3))
        });
    chart
        .draw_series(std::iter::once(Text::new(
            format!("p50 + right-tail stddev = {:.0} us", p50 + sigma),
            (p50, tallest * 1.13),
            ("sans-serif", 14),
        )))
        .map_err(err("tail label"))?;
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .position(SeriesLabelPosition::UpperRight)
        .draw()
        .map_err(err("legend"))?;
    root.present().map_err(err("distribution"))?;
    Ok(())
}

/// Throughput (and p50/p99) against callers, one line per pool size, plus raw-limit.
pub(crate) fn throughput_vs_callers(path: &Path, records: &[RunRecord]) -> BenchResult<()> {
    let root = SVGBackend::new(path, SIZE).into_drawing_area();
    root.fill(&WHITE).map_err(err("background"))?;
    let (upper, lower) = root.split_vertically(SIZE.1 * 55 / 100);
    let callers = |r: &RunRecord| r.params["concurrency"].as_u64().unwrap_or(1) as f64;
    let pool = |r: &RunRecord| r.params["pool_size"].as_u64().unwrap_or(1);
    let x_max = records.iter().map(callers).fold(1.0, f64::max) * 1.5;
    let y_max = records
        .iter()
        .flat_map(|r| {
            [
                r.result.ops_per_sec,
                r.raw_limit.as_ref().map_or(0.0, |x| x.ops_per_sec),
            ]
        })
        .fold(1.0, f64::max)
        * 1.15;
    let mut pools: Vec<u64> = records.iter().map(pool).collect();
    pools.sort_unstable();
    pools.dedup();
    let first = &records[0];
    let caption = format!(
        "throughput vs callers: {} {}",
        first.params["workload"].as_str().unwrap_or("?"),
        first.params["mode"].as_str().unwrap_or("?")
    );
    let mut chart = ChartBuilder::on(&upper)
        .caption(caption, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(35)
        .y_label_area_size(80)
        .build_cartesian_2d((0.8f64..x_max).log_scale(), 0f64..y_max)
        .map_err(err("throughput"))?;
    chart
        .configure_mesh()
        .x_desc("callers (in flight, log)")
        .y_desc("ops/s")
        .x_label_formatter(&|v| format!("{v:.0}"))
        .y_label_formatter(&|v| format!("{v:.0}"))
        .draw()
        .map_err(err("mesh"))?;
    for (i, &p) in pools.iter().enumerate() {
        let color = PALETTE[i % PALETTE.len()];
        let line: Vec<(f64, f64)> = records
            .iter()
            .filter(|r| pool(r) == p)
            .map(|r| (callers(r), r.result.ops_per_sec))
            .collect();
        chart
            .draw_series(LineSeries::new(line.clone(), color.stroke_width(2)))
            .map_err(err("series"))?
            .label(format!("hbclient, pool {p}"))
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
            });
        chart
            .draw_series(
                line.into_iter()
                    .map(|xy| Circle::new(xy, 3, color.filled())),
            )
            .map_err(err("points"))?;
        let raw: Vec<(f64, f64)> = records
            .iter()
            .filter(|r| pool(r) == p)
            .filter_map(|r| r.raw_limit.as_ref().map(|x| (callers(r), x.ops_per_sec)))
            .collect();
        if !raw.is_empty() {
            chart
                .draw_series(LineSeries::new(raw, color.mix(0.45).stroke_width(1)))
                .map_err(err("raw"))?
                .label(format!("raw-limit (measured beside pool {p})"))
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 20, y)], color.mix(0.45).stroke_width(1))
                });
        }
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .position(SeriesLabelPosition::UpperLeft)
        .draw()
        .map_err(err("legend"))?;

    let l_max = records
        .iter()
        .map(|r| r.result.latency.p99_us)
        .max()
        .unwrap_or(1)
        .max(2) as f64
        * 2.0;
    let mut lat = ChartBuilder::on(&lower)
        .margin(12)
        .x_label_area_size(35)
        .y_label_area_size(80)
        .build_cartesian_2d((0.8f64..x_max).log_scale(), (1f64..l_max).log_scale())
        .map_err(err("latency"))?;
    lat.configure_mesh()
        .x_desc("callers (log)")
        .y_desc("latency (us, log)")
        .x_label_formatter(&|v| format!("{v:.0}"))
        .y_label_formatter(&|v| format!("{v:.0}"))
        .draw()
        .map_err(err("mesh"))?;
    for (i, &p) in pools.iter().enumerate() {
        let color = PALETTE[i % PALETTE.len()];
        for (name, q99) in [("p50", false), ("p99", true)] {
            let line: Vec<(f64, f64)> = records
                .iter()
                .filter(|r| pool(r) == p)
                .map(|r| {
                    let l = &r.result.latency;
                    (
                        callers(r),
                        (if q99 { l.p99_us } else { l.p50_us }).max(1) as f64,
                    )
                })
                .collect();
            let style = if q99 {
                color.stroke_width(1)
            } else {
                color.stroke_width(3)
            };
            lat.draw_series(LineSeries::new(line, style))
                .map_err(err("latency"))?
                .label(format!("{name}, pool {p}"))
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], style));
        }
    }
    lat.configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .position(SeriesLabelPosition::UpperLeft)
        .draw()
        .map_err(err("legend"))?;
    root.present().map_err(err("throughput vs callers"))?;
    Ok(())
}
