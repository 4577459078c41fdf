//! How table operations pick the QoS priority of their calls (the header field itself is
//! [`CallMeta`]'s, in the RPC layer), and the public names of call metadata.

use crate::rpc::meta::priority;

/// The priority a table's call is sent with, as the Java client picks it
/// (`ConnectionUtils.calcPriority`): the operation's own if set, else
/// [`priority::SYSTEM_TABLE`] for a system table. A user table's call without one is sent
/// without a priority: the server then computes [`priority::NORMAL`], the value the Java client
/// would have sent.
pub(crate) fn effective_priority(
    operation: Option<u32>,
    table: &hbclient_proto::meta::TableName,
) -> Option<u32> {
    operation.or_else(|| is_system_table(table).then_some(priority::SYSTEM_TABLE))
}

/// HBase's `TableName.isSystemTable`: every table of the `hbase` namespace.
pub(crate) fn is_system_table(table: &hbclient_proto::meta::TableName) -> bool {
    &table.namespace()[..] == hbclient_proto::meta::TableName::SYSTEM_NAMESPACE
}

#[cfg(test)]
mod tests {
    use super::*;
    use hbclient_proto::meta::TableName;

    #[test]
    fn system_tables_default_to_the_high_priority_as_in_java() {
        let user = TableName::parse("t").unwrap();
        let meta = TableName::meta();
        let ns_system = TableName::parse("hbase:namespace").unwrap();
        assert_eq!(effective_priority(None, &user), None);
        assert_eq!(effective_priority(Some(7), &user), Some(7));
        assert_eq!(effective_priority(None, &meta), Some(priority::HIGH));
        assert_eq!(effective_priority(None, &ns_system), Some(priority::HIGH));
        assert_eq!(effective_priority(Some(0), &meta), Some(0));
    }
}
