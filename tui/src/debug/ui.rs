//! Drawing the debugger: [`render`], a function of the [`App`] alone, draws
//! the panes where [`layout`] puts them, the status lines and the help.

use deepcps_machine::view::Status;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Wrap};
use ratatui::Frame;

use super::app::App;
use super::graph::{centre_on_focus, layout as graph_layout, GraphView};
use super::keys;
use super::panes::{layout, Pane, MIN_HEIGHT, MIN_WIDTH};
use super::worker::ViewData;

/// Draws the whole screen.
pub fn render(f: &mut Frame, app: &App) {
    let size = f.area();
    let a = layout(size, app.active);
    if a.too_small {
        let msg = format!(
            "terminal too small ({}x{}): deepcps debug needs at least {MIN_WIDTH}x{MIN_HEIGHT}",
            size.width, size.height
        );
        f.render_widget(Paragraph::new(msg).wrap(Wrap { trim: true }), size);
        return;
    }
    let view = app.view.as_deref();
    // One pane alone: its title says which are hidden and how to reach them.
    let alone = a.graph.is_none() || a.program.is_none();
    if let Some(r) = a.program {
        program_pane(f, app, view, r, alone);
    }
    if let Some(r) = a.graph {
        graph_pane(f, app, view, r, alone);
    }
    if let Some(r) = a.chains {
        chains_pane(f, app, view, r, alone);
    }
    if let Some(r) = a.breakpoints {
        breakpoints_pane(f, app, view, r, alone);
    }
    status_lines(f, app, view, a.status);
    if app.help {
        help(f, app, size);
    }
}

/// The name of a pane in the hint of a pane shown alone.
fn pane_name(p: Pane) -> &'static str {
    match p {
        Pane::Program => "term",
        Pane::Graph => "graph",
        Pane::Chains => "chains",
        Pane::Breakpoints => "breakpoints",
    }
}

/// A pane's frame. `alone`: the pane is the only one on the screen, and
/// the title says so, with the hidden panes that Tab reaches.
fn block<'a>(app: &App, pane: Pane, mut title: String, alone: bool) -> Block<'a> {
    let active = app.active == pane;
    if alone {
        let hidden: Vec<&str> = Pane::ALL.iter().filter(|p| **p != pane).map(|p| pane_name(*p)).collect();
        let at = Pane::ALL.iter().position(|p| *p == pane).map_or(1, |i| i + 1);
        title = format!("{}│ pane {at}/4 · Tab: {} ", title, hidden.join(", "));
    }
    Block::default()
        .borders(Borders::ALL)
        .border_style(app.palette.border(active))
        .title(Span::styled(title, app.palette.border(active)))
}

fn program_pane(f: &mut Frame, app: &App, view: Option<&ViewData>, r: Rect, alone: bool) {
    let title = match view {
        Some(v) => format!(
            " {} · step {}{} ",
            v.title,
            v.step,
            if app.follow { " · following" } else { " · f: follow" }
        ),
        None => " term ".to_string(),
    };
    let b = block(app, Pane::Program, title, alone);
    let inner = b.inner(r);
    f.render_widget(b, r);
    let Some(v) = view else { return };
    let pv = &v.program;
    let matches: &[usize] = app.search.as_ref().map_or(&[], |(_, m)| m.as_slice());
    let mlen = app.search.as_ref().map_or(0, |(p, _)| p.len());
    let mut lines = Vec::new();
    let mut seg = 0usize;
    for l in app.scroll..(app.scroll + usize::from(inner.height)).min(pv.line_starts.len()) {
        let start = pv.line_starts[l];
        let end = pv.line_starts.get(l + 1).map_or(pv.text.len(), |e| e - 1).max(start);
        let text = &pv.text[start..end.min(pv.text.len())];
        seg = app.segments.partition_point(|s| s.1 <= start).max(seg.min(app.segments.len()));
        let mut spans: Vec<Span> = Vec::new();
        let mut run = String::new();
        let mut run_style = Style::default();
        for (i, ch) in text.char_indices() {
            let at = start + i;
            while seg < app.segments.len() && app.segments[seg].1 <= at {
                seg += 1;
            }
            let body = app.segments.get(seg).filter(|s| s.0 <= at).and_then(|s| s.2);
            let mut style = body
                .and_then(|b| pv.bodies.get(b))
                .map_or(Style::default(), |b| app.palette.status(&b.status));
            let k = matches.partition_point(|&m| m + mlen <= at);
            if matches.get(k).is_some_and(|&m| m <= at) {
                style = style.patch(app.palette.matched());
            }
            if at == app.cursor && !app.follow {
                style = style.patch(app.palette.focus());
            }
            if style != run_style && !run.is_empty() {
                spans.push(Span::styled(std::mem::take(&mut run), run_style));
            }
            run_style = style;
            run.push(ch);
        }
        if !run.is_empty() {
            spans.push(Span::styled(run, run_style));
        }
        lines.push(Line::from(spans));
    }
    f.render_widget(Paragraph::new(lines), inner);
}

fn graph_pane(f: &mut Frame, app: &App, view: Option<&ViewData>, r: Rect, alone: bool) {
    let g = &app.graph;
    let title = format!(" graph · radius {} · zoom {:?} ", g.radius, g.zoom);
    let b = block(app, Pane::Graph, title, alone);
    let inner = b.inner(r);
    f.render_widget(b, r);
    let Some(n) = view.and_then(|v| v.graph.as_ref()) else {
        f.render_widget(Paragraph::new("no body to show"), inner);
        return;
    };
    let lay = graph_layout(n, g.zoom);
    let (cx, cy) = centre_on_focus(&lay, inner);
    let pan = (cx + g.pan.0, cy + g.pan.1);
    f.render_widget(GraphView::new(&lay, app.palette, pan), inner);
}

fn chains_pane(f: &mut Frame, app: &App, view: Option<&ViewData>, r: Rect, alone: bool) {
    let b = block(app, Pane::Chains, " chains · ⊥ waits · ⊤ fired · Enter: break on it ".into(), alone);
    let inner = b.inner(r);
    f.render_widget(b, r);
    let Some(v) = view else { return };
    let h = usize::from(inner.height);
    let top = app.chains_sel.saturating_sub(h.saturating_sub(1));
    let lines: Vec<Line> = v
        .chains
        .iter()
        .enumerate()
        .skip(top)
        .take(h)
        .map(|(i, row)| {
            let mut style = if row.heading {
                app.palette.border(true)
            } else if row.focus {
                app.palette.status(&Status::Ready)
            } else {
                Style::default()
            };
            if i == app.chains_sel && app.active == Pane::Chains {
                style = style.patch(app.palette.focus());
            }
            Line::from(Span::styled(row.text.clone(), style))
        })
        .collect();
    f.render_widget(Paragraph::new(lines), inner);
}

fn breakpoints_pane(f: &mut Frame, app: &App, view: Option<&ViewData>, r: Rect, alone: bool) {
    let b = block(app, Pane::Breakpoints, " breakpoints · b add · t toggle · d delete ".into(), alone);
    let inner = b.inner(r);
    f.render_widget(b, r);
    let Some(v) = view else { return };
    if v.breakpoints.is_empty() {
        f.render_widget(Paragraph::new(Span::styled("none (b to add)", app.palette.dim())), inner);
        return;
    }
    let lines: Vec<Line> = v
        .breakpoints
        .iter()
        .enumerate()
        .map(|(i, (what, on, hits))| {
            let text = format!("{} [{}] {what}  (hits {hits})", i + 1, if *on { "x" } else { " " });
            let mut style = if *on { Style::default() } else { app.palette.dim() };
            if i == app.bps_sel && app.active == Pane::Breakpoints {
                style = style.patch(app.palette.focus());
            }
            Line::from(Span::styled(text, style))
        })
        .collect();
    f.render_widget(Paragraph::new(lines), inner);
}

fn status_lines(f: &mut Frame, app: &App, view: Option<&ViewData>, r: Rect) {
    let fr = &app.frame;
    let c = fr.counts;
    let width = usize::from(r.width);
    let state = if fr.running {
        "▶ running"
    } else if fr.end.is_some() {
        "■ ended"
    } else {
        "‖ paused"
    };
    // The first line's parts in their order, each with its rank: the
    // lowest ranked are left out first until the line fits the width (the
    // state and the step always stay).
    let mut parts: Vec<(String, u8)> = vec![(state.to_string(), u8::MAX), (format!("step {}", fr.steps), u8::MAX)];
    parts.push((format!("β{} expr{} if{} fix{} exit{}", c.beta, c.expr, c.if_, c.fix, c.exit), 3));
    if let Some(v) = view {
        let [ready, pending, stuck, error, inactive] = v.statuses;
        parts.push((
            format!("ready {ready} pend {pending} stuck {stuck} err {error} inact {inactive}"),
            4,
        ));
    }
    parts.push((format!("{} nodes", fr.live_nodes), 2));
    if let Some(b) = fr.rss_bytes {
        parts.push((format!("{:.1} MB", b as f64 / 1e6), 1));
    }
    parts.push((crate::text::plural(fr.threads, "thread", "threads"), 0));
    if let Some(n) = app.count {
        parts.push((format!("count {n}"), u8::MAX));
    }
    let line_len = |parts: &[(String, u8)]| parts.iter().map(|(p, _)| p.chars().count() + 3).sum::<usize>().saturating_sub(3);
    while line_len(&parts) > width {
        let Some(low) = parts
            .iter()
            .enumerate()
            .filter(|(_, p)| p.1 < u8::MAX)
            .min_by_key(|(_, p)| p.1)
            .map(|(i, _)| i)
        else {
            break;
        };
        parts.remove(low);
    }
    let parts: Vec<String> = parts.into_iter().map(|(p, _)| p).collect();
    let first = parts.join(" │ ");
    let second: Line = if let Some(p) = &app.prompt {
        Line::from(vec![
            Span::raw(p.kind.label(width)),
            Span::styled(format!("{}█", p.text), app.palette.focus()),
        ])
    } else if let Some(m) = app.notice.as_ref().or(fr.message.as_ref()) {
        Line::from(Span::styled(m.clone(), app.palette.alert()))
    } else if let (Some((pat, _)), Some((at, total))) = (&app.search, app.match_position()) {
        let text = if total == 0 {
            format!("/{pat}: not found · Esc ends the search")
        } else {
            format!("/{pat}: match {at} of {total} · n next · N previous · Esc ends the search")
        };
        let style = if total == 0 { app.palette.alert() } else { app.palette.dim() };
        Line::from(Span::styled(fit(&text, width), style))
    } else if let Some(e) = &fr.end {
        Line::from(Span::styled(
            fit(&format!("{e} · u/← back · q quit"), width),
            app.palette.border(true),
        ))
    } else {
        let mut spans = Vec::new();
        let mut used = 0;
        if let Some(n) = &fr.next {
            let n = format!("{n} · ");
            used = n.chars().count();
            spans.push(Span::raw(n));
        }
        // The longest hint that fits.
        let hint = [
            "s step · u back · c continue · r run · e reduce subtree · b break · / search · Tab pane · ? help · q quit",
            "s step · u back · c continue · r run · b break · / search · Tab pane · ? help",
            "s step · u back · c cont · b break · ? help",
            "? help",
        ]
        .into_iter()
        .find(|h| used + h.chars().count() <= width)
        .unwrap_or("? help");
        spans.push(Span::styled(hint, app.palette.dim()));
        Line::from(spans)
    };
    f.render_widget(Paragraph::new(vec![Line::from(first), second]), r);
}

/// `text` cut to `width` characters, with `…` where it was cut.
fn fit(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_string();
    }
    let mut s: String = text.chars().take(width.saturating_sub(1)).collect();
    s.push('…');
    s
}

/// The help overlay: a line for each entry of the key table, then the
/// help's own keys.
fn help(f: &mut Frame, app: &App, size: Rect) {
    /// Width of the key column.
    const KEY_COLUMN: usize = 15;
    let longest = keys::KEYS
        .iter()
        .map(|e| KEY_COLUMN + 2 + e.what.chars().count())
        .max()
        .unwrap_or(40);
    // As wide as the longest line (and the borders), as the screen allows;
    // narrower screens wrap the descriptions.
    let w = u16::try_from(longest + 2)
        .unwrap_or(u16::MAX)
        .min(size.width.saturating_sub(2))
        .max(1);
    let text_w = usize::from(w.saturating_sub(2)).max(1);
    let mut lines: Vec<Line> = Vec::new();
    for keys::HelpEntry { keys: k, what, .. } in keys::KEYS {
        let room = text_w.saturating_sub(KEY_COLUMN + 2).max(8);
        let mut first = true;
        for piece in wrap_words(what, room) {
            let key = if first {
                format!("{k:>KEY_COLUMN$}  ")
            } else {
                " ".repeat(KEY_COLUMN + 2)
            };
            first = false;
            lines.push(Line::from(vec![Span::styled(key, app.palette.border(true)), Span::raw(piece)]));
        }
    }
    lines.push(Line::from(Span::styled(keys::HELP_KEYS.what, app.palette.dim())));
    let h = u16::try_from(lines.len() + 2).unwrap_or(u16::MAX).min(size.height);
    let area = Rect::new(
        size.x + (size.width.saturating_sub(w)) / 2,
        size.y + (size.height.saturating_sub(h)) / 2,
        w,
        h,
    );
    f.render_widget(Clear, area);
    let b = Block::default().borders(Borders::ALL).title(" deepcps debug: keys ");
    f.render_widget(Paragraph::new(lines).block(b), area);
}

/// `text` in lines of at most `width` characters, broken between words.
fn wrap_words(text: &str, width: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut line = String::new();
    for word in text.split(' ') {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            out.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    out.push(line);
    out
}
