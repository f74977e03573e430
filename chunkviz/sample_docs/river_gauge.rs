//! River gauge readings: parsing the logger's text export and raising flood alerts.
//!
//! The logger at the footbridge writes one line per reading, `timestamp,level_cm`,
//! for example `2026-03-14T06:00,182`. Volunteers copy the file from the logger
//! once a week; this module turns it into readings and tells them which ones
//! crossed the warning or the flood level.

use std::fmt;
use std::str::FromStr;

/// The level, in centimetres above the gauge's zero, at which volunteers are warned.
pub const WARNING_LEVEL_CM: u32 = 250;

/// The level at which the river leaves its banks below the footbridge.
pub const FLOOD_LEVEL_CM: u32 = 320;

/// One line of the export: when it was taken and the water level.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reading {
    pub timestamp: String,
    pub level_cm: u32,
}

/// How serious a reading is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Alert {
    Normal,
    Warning,
    Flood,
}

impl Reading {
    /// The alert this reading raises, compared with the two fixed levels.
    pub fn alert(&self) -> Alert {
        if self.level_cm >= FLOOD_LEVEL_CM {
            Alert::Flood
        } else if self.level_cm >= WARNING_LEVEL_CM {
            Alert::Warning
        } else {
            Alert::Normal
        }
    }
}

/// Why a line of the export could not be read.
#[derive(Debug, PartialEq, Eq)]
pub struct ParseError {
    pub line: usize,
    pub reason: &'static str,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.reason)
    }
}

impl FromStr for Reading {
    type Err = &'static str;

    /// Reads `timestamp,level_cm`; the timestamp is kept as written.
    fn from_str(line: &str) -> Result<Self, Self::Err> {
        let (timestamp, level) = line.split_once(',').ok_or("expected timestamp,level_cm")?;
        let level_cm = level.trim().parse().map_err(|_| "the level is not a whole number")?;
        Ok(Reading { timestamp: timestamp.trim().to_string(), level_cm })
    }
}

/// Parses a whole export and collects the readings that raise an alert.
///
/// Blank lines and lines starting with `#` (the logger's header) are skipped. The
/// first line that cannot be read stops the parse with its line number, because a
/// damaged export usually means the copy from the logger was interrupted and the
/// volunteers should copy it again rather than trust a partial week.
pub fn alerts_in_export(export: &str) -> Result<Vec<(Reading, Alert)>, ParseError> {
    let mut alerts = Vec::new();
    let mut highest: Option<u32> = None;
    for (index, raw) in export.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let reading: Reading = line.parse().map_err(|reason| ParseError { line: index + 1, reason })?;
        highest = Some(highest.map_or(reading.level_cm, |h| h.max(reading.level_cm)));
        let alert = reading.alert();
        if alert != Alert::Normal {
            alerts.push((reading, alert));
        }
    }
    if highest.is_none() {
        return Err(ParseError { line: 0, reason: "the export holds no readings" });
    }
    alerts.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.timestamp.cmp(&b.0.timestamp)));
    Ok(alerts)
}
