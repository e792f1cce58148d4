//! Rows of the Azure LLM inference traces (2023; Patel et al., Splitwise, ISCA
//! 2024): CSV with the header `TIMESTAMP,ContextTokens,GeneratedTokens`, CRLF
//! line endings, and wall-clock timestamps such as `2023-11-16 18:17:03.9799600`
//! (seven fractional digits). The traces carry
//! no prefix information, so rows have no block ids and the importer gives each
//! prompt blocks of its own.

use alloc::format;
use alloc::string::String;

use super::row::{Row, RowProblem};

/// The header line, exactly.
pub const HEADER: &str = "TIMESTAMP,ContextTokens,GeneratedTokens";

/// Milliseconds since 1970-01-01 of `YYYY-MM-DD HH:MM:SS[.fraction]`, read
/// by chrono (up to nine fractional digits; the traces use seven).
pub fn timestamp_ms(s: &str) -> Result<f64, String> {
    let t = chrono::NaiveDateTime::parse_from_str(s.trim(), "%Y-%m-%d %H:%M:%S%.f")
        .map_err(|e| format!("timestamp '{s}' is not YYYY-MM-DD HH:MM:SS.fraction ({e})"))?
        .and_utc();
    Ok(t.timestamp() as f64 * 1000.0 + f64::from(t.timestamp_subsec_nanos()) / 1.0e6)
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
