//! Rows of the Azure LLM inference traces (2023; Patel et al., Splitwise, ISCA
//! 2024): CSV with the header `TIMESTAMP,ContextTokens,GeneratedTokens`, CRLF
//! line endings, and wall-clock timestamps such as `2023-11-16 18:17:03.9799600`
//! (seven fractional digits, which many date parsers refuse). The traces carry
//! no prefix information, so rows have no block ids and the importer gives each
//! prompt blocks of its own.

use alloc::format;
use alloc::string::String;

use super::row::{Row, RowProblem};

/// The header line, exactly.
pub const HEADER: &str = "TIMESTAMP,ContextTokens,GeneratedTokens";

/// Days from 1970-01-01 to the civil date `y-m-d` (Howard Hinnant's
/// `days_from_civil`, valid for any proleptic Gregorian date).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn field<T>(s: &str, what: &str, range: core::ops::RangeInclusive<i64>) -> Result<T, String>
where
    T: core::str::FromStr + Into<i64> + Copy,
{
    let v: T = s
        .parse()
        .map_err(|_| format!("{what} '{s}' is not a number"))?;
    if range.contains(&v.into()) {
        Ok(v)
    } else {
        Err(format!("{what} {s} is out of range"))
    }
}

/// Milliseconds since 1970-01-01 of `YYYY-MM-DD HH:MM:SS[.fraction]` (any
/// number of fractional digits; the traces use seven).
pub fn timestamp_ms(s: &str) -> Result<f64, String> {
    let bad = || format!("timestamp '{s}' is not YYYY-MM-DD HH:MM:SS.fraction");
    let (date, time) = s.trim().split_once(' ').ok_or_else(bad)?;
    let mut d = date.split('-');
    let (y, m, day) = (
        d.next().ok_or_else(bad)?,
        d.next().ok_or_else(bad)?,
        d.next().ok_or_else(bad)?,
    );
    if d.next().is_some() {
        return Err(bad());
    }
    let (clock, fraction) = match time.split_once('.') {
        Some((c, f)) => (c, f),
        None => (time, ""),
    };
    let mut c = clock.split(':');
    let (h, mi, sec) = (
        c.next().ok_or_else(bad)?,
        c.next().ok_or_else(bad)?,
        c.next().ok_or_else(bad)?,
    );
    if c.next().is_some() || !fraction.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    let y: i32 = field(y, "year", 1..=9999)?;
    let m: u8 = field(m, "month", 1..=12)?;
    let day: u8 = field(day, "day", 1..=31)?;
    let h: u8 = field(h, "hour", 0..=23)?;
    let mi: u8 = field(mi, "minute", 0..=59)?;
    let sec: u8 = field(sec, "second", 0..=60)?;
    let days = days_from_civil(y.into(), m.into(), day.into());
    let whole = ((days * 24 + i64::from(h)) * 60 + i64::from(mi)) * 60 + i64::from(sec);
    // Up to nine fractional digits are kept (nanoseconds); more are ignored.
    let digits = &fraction[..fraction.len().min(9)];
    let nanos: f64 = if digits.is_empty() {
        0.0
    } else {
        let n: u64 = digits.parse().map_err(|_| bad())?;
        n as f64 * libm::pow(10.0, 9.0 - digits.len() as f64)
    };
    Ok(whole as f64 * 1000.0 + nanos / 1.0e6)
}

/// Read one data line (`number` is 1-based, for problems). The caller checks
/// the header and strips the CR of CRLF.
pub fn row(line: &str, number: usize) -> Result<Row, RowProblem> {
    let problem = |why: String| RowProblem { line: number, why };
    super::row::numbers_in_bounds(line).map_err(problem)?;
    let mut cols = line.split(',');
    let (Some(ts), Some(ctx), Some(gen), None) =
        (cols.next(), cols.next(), cols.next(), cols.next())
    else {
        return Err(problem(format!(
            "expected 3 comma-separated fields: {HEADER}"
        )));
    };
    let ms = timestamp_ms(ts).map_err(problem)?;
    let prompt: u32 = ctx.trim().parse().map_err(|_| {
        problem(format!(
            "ContextTokens '{}' is not a whole number",
            ctx.trim()
        ))
    })?;
    let output: u32 = gen.trim().parse().map_err(|_| {
        problem(format!(
            "GeneratedTokens '{}' is not a whole number",
            gen.trim()
        ))
    })?;
    for (n, name) in [(prompt, "ContextTokens"), (output, "GeneratedTokens")] {
        if n == 0 {
            return Err(problem(format!(
                "{name} is 0; a request needs at least one token"
            )));
        }
    }
    Ok(Row {
        ms,
        prompt,
        output,
        blocks: None,
        line: number,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seven_digit_fractions_and_calendar_days() {
        let a = timestamp_ms("2023-11-16 18:17:03.9799600").expect("valid");
        let b = timestamp_ms("2023-11-16 18:17:04.0319600").expect("valid");
        assert!((b - a - 52.0).abs() < 1e-6, "{}", b - a);
        // Across midnight and a month end.
        let c = timestamp_ms("2023-11-30 23:59:59.5").expect("valid");
        let d = timestamp_ms("2023-12-01 00:00:00").expect("valid");
        assert!((d - c - 500.0).abs() < 1e-6);
        assert_eq!(timestamp_ms("1970-01-02 00:00:00"), Ok(86_400_000.0));
        assert!(timestamp_ms("2023-13-01 00:00:00").is_err());
        assert!(timestamp_ms("yesterday").is_err());
    }

    #[test]
    fn rows_and_their_problems() {
        let r = row("2023-11-16 18:17:03.9799600,4808,10", 2).expect("valid");
        assert_eq!((r.prompt, r.output, r.blocks), (4808, 10, None));
        assert!(row("2023-11-16 18:17:03.9799600,4808", 3)
            .expect_err("2 fields")
            .why
            .contains("3 comma"));
        assert!(row("2023-11-16 18:17:03.97,many,10", 4)
            .expect_err("text")
            .why
            .contains("ContextTokens"));
        assert_eq!(row("x,1,1", 9).expect_err("bad time").line, 9);
    }
}
