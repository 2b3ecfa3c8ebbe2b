//! Drawing a [`Layout`] with ratatui: [`GraphView`] clips the layout to a
//! rectangle at a pan offset and styles it with a [`Palette`];
//! [`centre_on_focus`] gives the pan that puts the focus in the middle.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::widgets::Widget;

use super::layout::{CellRole, Layout};
use crate::debug::style::Palette;

/// A layout drawn at a pan offset: the layout cell `pan` lands on the
/// area's top-left corner; whatever falls outside the area is clipped.
#[derive(Clone, Copy, Debug)]
pub struct GraphView<'a> {
    /// What to draw.
    pub layout: &'a Layout,
    /// The styles: nodes by status, the focus, edges dim.
    pub palette: Palette,
    /// The layout cell at the area's top-left corner.
    pub pan: (i32, i32),
}

impl<'a> GraphView<'a> {
    /// A view of `layout` with `palette` at `pan`.
    pub fn new(layout: &'a Layout, palette: Palette, pan: (i32, i32)) -> GraphView<'a> {
        GraphView { layout, palette, pan }
    }

    /// The style of a primitive.
    fn style(&self, role: &CellRole) -> Style {
        match role {
            CellRole::Node(Some(status)) => self.palette.status(status),
            CellRole::Node(None) => Style::default(),
            CellRole::Focus => self.palette.focus(),
            CellRole::More | CellRole::Edge | CellRole::EdgeLabel | CellRole::Binding => self.palette.dim(),
        }
    }
}

impl Widget for GraphView<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let area = area.intersection(buf.area);
        let (w, h) = (i64::from(area.width), i64::from(area.height));
        let (px, py) = (i64::from(self.pan.0), i64::from(self.pan.1));
        for p in &self.layout.prims {
            let y = i64::from(p.y) - py;
            if !(0..h).contains(&y) {
                continue;
            }
            let style = self.style(&p.role);
            let mut tmp = [0u8; 4];
            for (i, ch) in p.text.chars().enumerate() {
                let x = i64::from(p.x) + i64::try_from(i).unwrap_or(i64::MAX / 2) - px;
                if x >= w {
                    break;
                }
                if x < 0 {
                    continue;
                }
                // In range: 0 <= x < width and 0 <= y < height, both u16.
                let (Ok(x), Ok(y)) = (u16::try_from(x), u16::try_from(y)) else {
                    continue;
                };
                if let Some(cell) = buf.cell_mut((area.x + x, area.y + y)) {
                    cell.set_symbol(ch.encode_utf8(&mut tmp)).set_style(style);
                }
            }
        }
    }
}

/// The pan that puts the focus's box in the middle of `area` (`(0, 0)`
/// without a focus).
pub fn centre_on_focus(layout: &Layout, area: Rect) -> (i32, i32) {
    let Some(b) = layout.focus.and_then(|f| layout.boxes.get(f)) else {
        return (0, 0);
    };
    (b.centre() - i32::from(area.width / 2), b.y - i32::from(area.height / 2))
}
