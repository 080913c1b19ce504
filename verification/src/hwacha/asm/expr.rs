//! Constant integer expressions in Hwacha operands (`-0x10000`, `(N*4)+1` after the C
//! preprocessor expanded `N`), evaluated here so that ranges are checked with a source
//! line. Numbers follow GNU as: `0x` hex, `0b` binary, a leading `0` octal, else decimal.
//! Operators and precedence are C's: unary `- + ~`, then `* / %`, `+ -`, `<< >>`, `&`,
//! `^`, `|`. An expression naming a symbol is not constant; the caller decides whether
//! GNU as may resolve it instead.

/// Why an expression has no constant value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExprError {
    /// It refers to a symbol (a label), so only the assembler or linker knows its value.
    Symbolic,
    /// It is not an expression at all.
    Syntax(String),
    /// Overflow or division by zero.
    Arithmetic(String),
}

/// Evaluates `text` as a constant expression.
pub fn eval(text: &str) -> Result<i128, ExprError> {
    let (tokens, symbolic) = tokenize(text)?;
    if tokens.is_empty() {
        return Err(ExprError::Syntax("empty expression".into()));
    }
    let mut parser = Parser { tokens, pos: 0 };
    let result = parser
        .binary(0)
        .and_then(|value| match parser.tokens.get(parser.pos) {
            None => Ok(value),
            Some(t) => Err(ExprError::Syntax(format!("unexpected `{}`", t.text()))),
        });
    match result {
        // Symbols evaluate as zero so that the shape is still checked; arithmetic on
        // those zeros means nothing.
        Ok(_) | Err(ExprError::Arithmetic(_)) if symbolic => Err(ExprError::Symbolic),
        other => other,
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Num(i128),
    Sym(String),
    Op(&'static str),
    Open,
    Close,
}

impl Token {
    fn text(&self) -> String {
        match self {
            Token::Num(n) => n.to_string(),
            Token::Sym(s) => s.clone(),
            Token::Op(op) => op.to_string(),
            Token::Open => "(".into(),
            Token::Close => ")".into(),
        }
    }
}

const OPERATORS: &[&str] = &["<<", ">>", "+", "-", "*", "/", "%", "&", "|", "^", "~"];

/// The tokens of `text` and whether it names a symbol.
fn tokenize(text: &str) -> Result<(Vec<Token>, bool), ExprError> {
    let bytes = text.as_bytes();
    let mut tokens = Vec::new();
    let mut i = 0;
    let mut symbolic = false;
    let is_word = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'$');
    while i < bytes.len() {
        let c = bytes[i];
        let start = i;
        if c.is_ascii_whitespace() {
            i += 1;
        } else if is_word(c) {
            while i < bytes.len() && is_word(bytes[i]) {
                i += 1;
            }
            let word = &text[start..i];
            let local_label = word.len() > 1
                && (word.ends_with('f') || word.ends_with('b'))
                && word[..word.len() - 1].bytes().all(|b| b.is_ascii_digit());
            if c.is_ascii_digit() && !local_label {
                tokens.push(Token::Num(parse_number(word)?));
            } else {
                // A label, `.`, or a GNU as local label reference such as `1f`.
                symbolic = true;
                tokens.push(Token::Sym(word.to_string()));
            }
        } else if c == b'(' {
            tokens.push(Token::Open);
            i += 1;
        } else if c == b')' {
            tokens.push(Token::Close);
            i += 1;
        } else if let Some(op) = OPERATORS.iter().find(|op| text[i..].starts_with(**op)) {
            tokens.push(Token::Op(op));
            i += op.len();
        } else {
            let ch = text[i..].chars().next().unwrap_or('?');
            return Err(ExprError::Syntax(format!("unexpected `{ch}`")));
        }
    }
    Ok((tokens, symbolic))
}

fn parse_number(word: &str) -> Result<i128, ExprError> {
    let bad = || ExprError::Syntax(format!("bad number `{word}`"));
    let lower = word.to_ascii_lowercase();
    let (digits, radix) = if let Some(hex) = lower.strip_prefix("0x") {
        (hex.to_string(), 16)
    } else if let Some(bin) = lower.strip_prefix("0b") {
        (bin.to_string(), 2)
    } else if lower.len() > 1 && lower.starts_with('0') {
        (lower[1..].to_string(), 8)
    } else {
        (lower, 10)
    };
    if digits.is_empty() {
        return Err(bad());
    }
    let value = u64::from_str_radix(&digits, radix).map_err(|_| bad())?;
    Ok(value as i128)
}

struct Parser {
    tokens: Vec<Token>,
    pos: usize,
}

/// Binary operators by precedence level, loosest first (C's order).
const LEVELS: &[&[&str]] = &[
    &["|"],
    &["^"],
    &["&"],
    &["<<", ">>"],
    &["+", "-"],
    &["*", "/", "%"],
];

impl Parser {
    fn binary(&mut self, level: usize) -> Result<i128, ExprError> {
        if level == LEVELS.len() {
            return self.unary();
        }
        let mut left = self.binary(level + 1)?;
        while let Some(Token::Op(op)) = self.tokens.get(self.pos) {
            let op = *op;
            if !LEVELS[level].contains(&op) {
                break;
            }
            self.pos += 1;
            let right = self.binary(level + 1)?;
            left = apply(op, left, right)?;
        }
        Ok(left)
    }

    fn unary(&mut self) -> Result<i128, ExprError> {
        match self.tokens.get(self.pos).cloned() {
            Some(Token::Op(op @ ("-" | "+" | "~"))) => {
                self.pos += 1;
                let v = self.unary()?;
                match op {
                    "-" => v
                        .checked_neg()
                        .ok_or_else(|| ExprError::Arithmetic(format!("overflow in `-{v}`"))),
                    "~" => Ok(!v),
                    _ => Ok(v),
                }
            }
            Some(Token::Num(n)) => {
                self.pos += 1;
                Ok(n)
            }
            Some(Token::Sym(_)) => {
                self.pos += 1;
                Ok(0)
            }
            Some(Token::Open) => {
                self.pos += 1;
                let v = self.binary(0)?;
                if self.tokens.get(self.pos) != Some(&Token::Close) {
                    return Err(ExprError::Syntax("missing `)`".into()));
                }
                self.pos += 1;
                Ok(v)
            }
            Some(t) => Err(ExprError::Syntax(format!("unexpected `{}`", t.text()))),
            None => Err(ExprError::Syntax("expression ends early".into())),
        }
    }
}

fn apply(op: &str, a: i128, b: i128) -> Result<i128, ExprError> {
    let overflow = || ExprError::Arithmetic(format!("overflow in `{a} {op} {b}`"));
    match op {
        "+" => a.checked_add(b).ok_or_else(overflow),
        "-" => a.checked_sub(b).ok_or_else(overflow),
        "*" => a.checked_mul(b).ok_or_else(overflow),
        "/" | "%" if b == 0 => Err(ExprError::Arithmetic("division by zero".into())),
        "/" => a.checked_div(b).ok_or_else(overflow),
        "%" => a.checked_rem(b).ok_or_else(overflow),
        "<<" => u32::try_from(b)
            .ok()
            .filter(|&s| s < 64)
            .and_then(|s| a.checked_mul(1i128 << s))
            .ok_or_else(overflow),
        ">>" => u32::try_from(b)
            .ok()
            .filter(|&s| s < 128)
            .map(|s| a >> s)
            .ok_or_else(overflow),
        "&" => Ok(a & b),
        "|" => Ok(a | b),
        _ => Ok(a ^ b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_operators() {
        assert_eq!(eval("-0x10000"), Ok(-0x10000));
        assert_eq!(eval("010"), Ok(8));
        assert_eq!(eval("0b101"), Ok(5));
        assert_eq!(eval("(4*4)+1"), Ok(17));
        assert_eq!(eval("1 + 2 * 3"), Ok(7));
        assert_eq!(eval("1 << 4 | 1"), Ok(17));
        assert_eq!(eval("~0 & 0xff"), Ok(255));
        assert_eq!(eval("-8 >> 1"), Ok(-4));
        assert_eq!(eval("7 % 4 ^ 1"), Ok(2));
        assert_eq!(eval("0xffffffffffffffff"), Ok(u64::MAX as i128));
    }

    #[test]
    fn symbols_are_not_constant() {
        assert_eq!(eval("loop"), Err(ExprError::Symbolic));
        assert_eq!(eval("1f"), Err(ExprError::Symbolic));
        assert_eq!(eval("blk + 8"), Err(ExprError::Symbolic));
        assert_eq!(eval(".L3 - ."), Err(ExprError::Symbolic));
    }

    #[test]
    fn malformed() {
        assert_eq!(eval(""), Err(ExprError::Syntax("empty expression".into())));
        assert_eq!(
            eval("1 +"),
            Err(ExprError::Syntax("expression ends early".into()))
        );
        assert_eq!(eval("(1"), Err(ExprError::Syntax("missing `)`".into())));
        assert_eq!(eval("1 2"), Err(ExprError::Syntax("unexpected `2`".into())));
        assert_eq!(
            eval("0xg"),
            Err(ExprError::Syntax("bad number `0xg`".into()))
        );
        assert_eq!(
            eval("lab lab"),
            Err(ExprError::Syntax("unexpected `lab`".into()))
        );
        assert_eq!(
            eval("1 @ 2"),
            Err(ExprError::Syntax("unexpected `@`".into()))
        );
        assert_eq!(
            eval("1/0"),
            Err(ExprError::Arithmetic("division by zero".into()))
        );
        assert!(matches!(eval("1 << 64"), Err(ExprError::Arithmetic(_))));
        // -2^127 / -1 and -(-2^127) do not fit in 128 bits.
        let min = "(-(1 << 63) * (1 << 63) * 2)";
        assert!(matches!(
            eval(&format!("{min} / -1")),
            Err(ExprError::Arithmetic(_))
        ));
        assert!(matches!(
            eval(&format!("-{min}")),
            Err(ExprError::Arithmetic(_))
        ));
    }
}
