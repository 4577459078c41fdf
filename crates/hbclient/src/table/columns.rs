//! Column selection shared by `Get` and `Scan`, with HBase's `addFamily` / `addColumn` rules.

use bytes::Bytes;
use hbclient_proto::pb;

/// Families, each with the qualifiers wanted (none listed: the whole family). Empty: everything.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Columns(Vec<(Bytes, Vec<Bytes>)>);

impl Columns {
    /// Selects a whole family, replacing columns of it selected before.
    pub(crate) fn add_family(&mut self, family: Bytes) {
        self.0.retain(|(f, _)| *f != family);
        self.0.push((family, Vec::new()));
    }

    /// Selects one column; after a whole-family selection this narrows the family to the
    /// columns listed from then on.
    pub(crate) fn add_column(&mut self, family: Bytes, qualifier: Bytes) {
        match self.0.iter_mut().find(|(f, _)| *f == family) {
            Some((_, qualifiers)) => qualifiers.push(qualifier),
            None => self.0.push((family, vec![qualifier])),
        }
    }

    /// The protobuf column list.
    pub(crate) fn to_pb(&self) -> Vec<pb::Column> {
        self.0
            .iter()
            .map(|(family, qualifier)| pb::Column {
                family: family.clone(),
                qualifier: qualifier.clone(),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families_and_columns_combine_like_hbase() {
        let mut c = Columns::default();
        c.add_column(Bytes::from_static(b"f"), Bytes::from_static(b"a"));
        c.add_family(Bytes::from_static(b"f"));
        assert!(
            c.to_pb()[0].qualifier.is_empty(),
            "addFamily widens to the whole family"
        );
        c.add_column(Bytes::from_static(b"f"), Bytes::from_static(b"b"));
        c.add_column(Bytes::from_static(b"g"), Bytes::from_static(b"c"));
        let pb = c.to_pb();
        assert_eq!(pb.len(), 2);
        assert_eq!(pb[0].qualifier, vec![Bytes::from_static(b"b")]);
    }
}
