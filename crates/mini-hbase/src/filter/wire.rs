//! Protobuf decoding with proto2 `required` checks, which prost does not enforce but HBase's
//! `parseFrom` does (a missing required field is an `InvalidProtocolBufferException`).

use prost::Message;

use super::base::FilterResult;
use super::FilterError;

/// Decodes `bytes` as `M`, failing like HBase if it is malformed or lacks a `required` field
/// (given as field numbers).
pub(crate) fn decode<M: Message + Default>(bytes: &[u8], required: &[u32]) -> FilterResult<M> {
    let fields = top_level_fields(bytes).map_err(|e| malformed::<M>(&e))?;
    if let Some(missing) = required
        .iter()
        .find(|tag| !fields.iter().any(|(t, _)| t == *tag))
    {
        return Err(malformed::<M>(&format!(
            "Message missing required fields (field {missing})"
        )));
    }
    M::decode(bytes).map_err(|e| malformed::<M>(&e.to_string()))
}

/// Payload of the first length-delimited field `tag` (for checking nested messages).
pub(crate) fn nested_field(bytes: &[u8], tag: u32) -> Option<&[u8]> {
    top_level_fields(bytes)
        .ok()?
        .into_iter()
        .find(|(t, payload)| *t == tag && payload.is_some())
        .and_then(|(_, payload)| payload)
}

fn malformed<M>(detail: &str) -> FilterError {
    let name = std::any::type_name::<M>()
        .rsplit("::")
        .next()
        .unwrap_or("?");
    FilterError::new(format!(
        "org.apache.hadoop.hbase.exceptions.DeserializationException: \
         com.google.protobuf.InvalidProtocolBufferException: {name}: {detail}"
    ))
}

/// A top-level field: its number and, when length-delimited, its payload.
type Field<'a> = (u32, Option<&'a [u8]>);

fn top_level_fields(mut bytes: &[u8]) -> Result<Vec<Field<'_>>, String> {
    let mut fields = Vec::new();
    while !bytes.is_empty() {
        let key = read_varint(&mut bytes)?;
        let tag = u32::try_from(key >> 3).map_err(|_| "field number too large".to_string())?;
        let payload = skip_value(&mut bytes, (key & 7) as u8)?;
        fields.push((tag, payload));
    }
    Ok(fields)
}

fn skip_value<'a>(bytes: &mut &'a [u8], wire_type: u8) -> Result<Option<&'a [u8]>, String> {
    let len = match wire_type {
        0 => {
            read_varint(bytes)?;
            return Ok(None);
        }
        1 => 8,
        5 => 4,
        2 => usize::try_from(read_varint(bytes)?).map_err(|_| "length overflow".to_string())?,
        other => return Err(format!("unsupported wire type {other}")),
    };
    if bytes.len() < len {
        return Err("truncated message".to_string());
    }
    let (value, rest) = bytes.split_at(len);
    *bytes = rest;
    Ok((wire_type == 2).then_some(value))
}

fn read_varint(bytes: &mut &[u8]) -> Result<u64, String> {
    let mut value = 0u64;
    for shift in (0..64).step_by(7) {
        let (&byte, rest) = bytes.split_first().ok_or("truncated varint")?;
        *bytes = rest;
        value |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return Ok(value);
        }
    }
    Err("malformed varint".to_string())
}
