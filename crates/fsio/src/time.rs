//! RFC 3339 UTC timestamps (`2026-02-24T15:30:00.123Z`) without a date-time dependency.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Environment variable shifting this package's clock by a signed number of milliseconds, for
/// tests of clock changes (a clock set a day ahead, then fixed): read on every [`now_ms`] call, so
/// a test process can move its clock back and forth (`process.env[...] = '86400000'`). Never set
/// it in production.
pub const CLOCK_OFFSET_ENV: &str = "OPENCLAW_CONTEXT_CLOCK_OFFSET_MS";

/// How far in the future a recorded time may lie before it is treated as now: times written while
/// the clock ran ahead (then fixed) must not make an entry outlive its TTL, nor a session look
/// active, for as long as the clock was wrong.
pub const FUTURE_TOLERANCE_MS: u64 = 5 * 60 * 1000;

/// Milliseconds since the Unix epoch, now (shifted by [`CLOCK_OFFSET_ENV`] when set).
pub fn now_ms() -> u64 {
    let real = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or(Duration::ZERO)
        .as_millis() as u64;
    match std::env::var(CLOCK_OFFSET_ENV)
        .ok()
        .and_then(|v| v.trim().parse::<i64>().ok())
    {
        Some(off) => real.saturating_add_signed(off),
        None => real,
    }
}

/// A recorded time as this package uses it at `now`: one later than `now` plus
/// [`FUTURE_TOLERANCE_MS`] (written while the clock ran ahead) counts as `now`, never as later
/// than everything.
pub fn clamp_future(t: u64, now: u64) -> u64 {
    if t > now.saturating_add(FUTURE_TOLERANCE_MS) {
        now
    } else {
        t
    }
}

/// Whether `t` lies further in the future than [`FUTURE_TOLERANCE_MS`] at `now`.
pub fn is_future(t: u64, now: u64) -> bool {
    t > now.saturating_add(FUTURE_TOLERANCE_MS)
}

/// Formats milliseconds since the epoch as RFC 3339 UTC with millisecond precision.
pub fn rfc3339(ms: u64) -> String {
    let secs = ms / 1000;
    let (y, m, d) = civil_from_days((secs / 86_400) as i64);
    let rem = secs % 86_400;
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        (rem % 3600) / 60,
        rem % 60,
        ms % 1000
    )
}

/// Parses `YYYY-MM-DDTHH:MM:SS[.fff...](Z|±HH:MM)` into milliseconds since the epoch.
pub fn parse_rfc3339(s: &str) -> Option<u64> {
    let b = s.as_bytes();
    if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b't' | b' ') {
        return None;
    }
    let num = |r: std::ops::Range<usize>| -> Option<i64> { s.get(r)?.parse().ok() };
    let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (h, mi, se) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || se > 60 {
        return None;
    }
    let mut i = 19;
    let mut frac_ms = 0i64;
    if b.get(i) == Some(&b'.') {
        i += 1;
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        let digits = s.get(start..i)?;
        if digits.is_empty() {
            return None;
        }
        let padded = format!("{:0<3}", &digits[..digits.len().min(3)]);
        frac_ms = padded.parse().ok()?;
    }
    let offset_min = match b.get(i)? {
        b'Z' | b'z' if i + 1 == b.len() => 0,
        sign @ (b'+' | b'-') if i + 6 == b.len() && b[i + 3] == b':' => {
            let m = num(i + 1..i + 3)? * 60 + num(i + 4..i + 6)?;
            if *sign == b'+' {
                m
            } else {
                -m
            }
        }
        _ => return None,
    };
    let days = days_from_civil(y, mo, d);
    let secs = days * 86_400 + h * 3600 + mi * 60 + se - offset_min * 60;
    u64::try_from(secs * 1000 + frac_ms).ok()
}

// Howard Hinnant's civil calendar algorithms.
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn future_times_count_as_now() {
        let now = 1_000_000_000;
        assert_eq!(
            clamp_future(now + FUTURE_TOLERANCE_MS, now),
            now + FUTURE_TOLERANCE_MS
        );
        assert_eq!(clamp_future(now + FUTURE_TOLERANCE_MS + 1, now), now);
        assert_eq!(clamp_future(u64::MAX, now), now);
        assert_eq!(clamp_future(5, now), 5);
        assert!(is_future(now + 365 * 86_400_000, now) && !is_future(now, now));
    }

    #[test]
    fn formats_and_parses() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(rfc3339(1_771_947_000_123), "2026-02-24T15:30:00.123Z");
        assert_eq!(
            parse_rfc3339("2026-02-24T15:30:00Z"),
            Some(1_771_947_000_000)
        );
        assert_eq!(
            parse_rfc3339("2026-02-24T15:30:00.123Z"),
            Some(1_771_947_000_123)
        );
        assert_eq!(
            parse_rfc3339("2026-02-24T16:30:00+01:00"),
            Some(1_771_947_000_000)
        );
        for bad in [
            "",
            "2026-02-24",
            "2026-13-01T00:00:00Z",
            "2026-02-24T15:30:00",
            "x".repeat(25).as_str(),
        ] {
            assert_eq!(parse_rfc3339(bad), None, "{bad}");
        }
        let mut ms = 0u64;
        while ms < 5_000_000_000_000 {
            assert_eq!(parse_rfc3339(&rfc3339(ms)), Some(ms));
            ms += 7_777_777_777;
        }
    }
}
