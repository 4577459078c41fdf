//! MasterService DDL and ClientMetaService, on the master and on region servers.

use bytes::Bytes;
use hbclient_proto::meta::TableName;
use hbclient_proto::pb;

use crate::raw::RawConn;
use crate::support::{b, cluster, locate};

fn schema(table: &str, families: &[&str]) -> pb::TableSchema {
    pb::TableSchema {
        table_name: Some(TableName::parse(table).unwrap().to_pb()),
        column_families: families
            .iter()
            .map(|f| pb::ColumnFamilySchema {
                name: b(f),
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    }
}

async fn proc_done(master: &mut RawConn, proc_id: u64) {
    let r: pb::GetProcedureResultResponse = master
        .call(
            "getProcedureResult",
            &pb::GetProcedureResultRequest { proc_id },
        )
        .await
        .body();
    assert_eq!(
        r.state,
        pb::get_procedure_result_response::State::Finished as i32
    );
    assert!(r.exception.is_none());
}

#[tokio::test]
async fn registry_answers_on_master_and_region_servers() {
    let c = cluster().await;
    let mut addrs = vec![c.master_addr()];
    addrs.extend(c.region_server_addrs());
    for addr in addrs {
        let mut conn = RawConn::open(addr, "ClientMetaService", true).await;
        let id: pb::GetClusterIdResponse = conn
            .call("GetClusterId", &pb::GetClusterIdRequest {})
            .await
            .body();
        assert_eq!(id.cluster_id.as_deref(), Some(c.cluster_id()));
        let master: pb::GetActiveMasterResponse = conn
            .call("GetActiveMaster", &pb::GetActiveMasterRequest {})
            .await
            .body();
        assert_eq!(
            master.server_name.unwrap().port,
            Some(u32::from(c.master_addr().port()))
        );
        let meta: pb::GetMetaRegionLocationsResponse = conn
            .call(
                "GetMetaRegionLocations",
                &pb::GetMetaRegionLocationsRequest {},
            )
            .await
            .body();
        let loc = &meta.meta_locations[0];
        assert_eq!(loc.region_info.region_id, 1);
        assert!(TableName::from_pb(&loc.region_info.table_name).is_meta());
        let meta_rs = c.region_server_addrs()[c.meta_server()];
        assert_eq!(
            loc.server_name.as_ref().unwrap().port,
            Some(u32::from(meta_rs.port()))
        );
        let nodes: pb::GetBootstrapNodesResponse = conn
            .call("GetBootstrapNodes", &pb::GetBootstrapNodesRequest {})
            .await
            .body();
        assert_eq!(nodes.server_name.len(), 3);
    }
}

#[tokio::test]
async fn ddl_round_trip() {
    let c = cluster().await;
    let mut master = RawConn::open(c.master_addr(), "MasterService", true).await;
    let running: pb::IsMasterRunningResponse = master
        .call("IsMasterRunning", &pb::IsMasterRunningRequest {})
        .await
        .body();
    assert!(running.is_master_running);

    let create = pb::CreateTableRequest {
        table_schema: schema("ns1", &["a", "b"]),
        split_keys: vec![b("g"), b("p")],
        nonce_group: None,
        nonce: None,
    };
    let r: pb::CreateTableResponse = master.call("CreateTable", &create).await.body();
    proc_done(&mut master, r.proc_id.unwrap()).await;
    assert_eq!(c.regions("ns1").len(), 3);
    let again = master.call("CreateTable", &create).await;
    assert_eq!(
        again.exception_class(),
        Some("org.apache.hadoop.hbase.TableExistsException")
    );

    // Every region is findable through meta at the right place.
    for (row, start) in [("a", ""), ("g", "g"), ("h", "g"), ("zz", "p")] {
        let (info, _) = locate(&c, "ns1", row.as_bytes()).await;
        assert_eq!(
            info.start_key.as_deref().unwrap_or_default(),
            start.as_bytes(),
            "row {row}"
        );
    }

    let names: pb::GetTableNamesResponse = master
        .call("GetTableNames", &pb::GetTableNamesRequest::default())
        .await
        .body();
    let names: Vec<String> = names
        .table_names
        .iter()
        .map(|t| TableName::from_pb(t).to_string())
        .collect();
    assert_eq!(names, ["ns1", "t"]);
    let desc: pb::GetTableDescriptorsResponse = master
        .call(
            "GetTableDescriptors",
            &pb::GetTableDescriptorsRequest {
                table_names: vec![TableName::parse("ns1").unwrap().to_pb()],
                ..Default::default()
            },
        )
        .await
        .body();
    assert_eq!(desc.table_schema.len(), 1);
    assert_eq!(desc.table_schema[0].column_families.len(), 2);

    let tn = TableName::parse("ns1").unwrap().to_pb();
    let state = |s: pb::GetTableStateResponse| s.table_state.state;
    let s: pb::GetTableStateResponse = master
        .call(
            "GetTableState",
            &pb::GetTableStateRequest {
                table_name: tn.clone(),
            },
        )
        .await
        .body();
    assert_eq!(state(s), pb::table_state::State::Enabled as i32);
    let del = master
        .call(
            "DeleteTable",
            &pb::DeleteTableRequest {
                table_name: tn.clone(),
                ..Default::default()
            },
        )
        .await;
    assert_eq!(
        del.exception_class(),
        Some("org.apache.hadoop.hbase.TableNotDisabledException")
    );
    let r: pb::DisableTableResponse = master
        .call(
            "DisableTable",
            &pb::DisableTableRequest {
                table_name: tn.clone(),
                ..Default::default()
            },
        )
        .await
        .body();
    proc_done(&mut master, r.proc_id.unwrap()).await;
    let s: pb::GetTableStateResponse = master
        .call(
            "GetTableState",
            &pb::GetTableStateRequest {
                table_name: tn.clone(),
            },
        )
        .await
        .body();
    assert_eq!(state(s), pb::table_state::State::Disabled as i32);
    let again = master
        .call(
            "DisableTable",
            &pb::DisableTableRequest {
                table_name: tn.clone(),
                ..Default::default()
            },
        )
        .await;
    assert_eq!(
        again.exception_class(),
        Some("org.apache.hadoop.hbase.TableNotEnabledException")
    );
    let r: pb::EnableTableResponse = master
        .call(
            "EnableTable",
            &pb::EnableTableRequest {
                table_name: tn.clone(),
                ..Default::default()
            },
        )
        .await
        .body();
    proc_done(&mut master, r.proc_id.unwrap()).await;
    master
        .call(
            "DisableTable",
            &pb::DisableTableRequest {
                table_name: tn.clone(),
                ..Default::default()
            },
        )
        .await
        .body::<pb::DisableTableResponse>();
    let r: pb::DeleteTableResponse = master
        .call(
            "DeleteTable",
            &pb::DeleteTableRequest {
                table_name: tn.clone(),
                ..Default::default()
            },
        )
        .await
        .body();
    proc_done(&mut master, r.proc_id.unwrap()).await;
    assert!(c.regions("ns1").is_empty());
    let gone = master
        .call(
            "GetTableState",
            &pb::GetTableStateRequest { table_name: tn },
        )
        .await;
    assert_eq!(
        gone.exception_class(),
        Some("org.apache.hadoop.hbase.TableNotFoundException")
    );
    let unknown: pb::GetProcedureResultResponse = master
        .call(
            "getProcedureResult",
            &pb::GetProcedureResultRequest { proc_id: 999_999 },
        )
        .await
        .body();
    assert_eq!(
        unknown.state,
        pb::get_procedure_result_response::State::NotFound as i32
    );
}

#[tokio::test]
async fn create_table_validation() {
    let c = cluster().await;
    let mut master = RawConn::open(c.master_addr(), "MasterService", true).await;
    let no_families = master
        .call(
            "CreateTable",
            &pb::CreateTableRequest {
                table_schema: schema("x", &[]),
                split_keys: vec![],
                nonce_group: None,
                nonce: None,
            },
        )
        .await;
    assert_eq!(
        no_families.exception_class(),
        Some("org.apache.hadoop.hbase.DoNotRetryIOException")
    );
    let unknown_ns = master
        .call(
            "CreateTable",
            &pb::CreateTableRequest {
                table_schema: schema("nope:x", &["f"]),
                split_keys: vec![],
                nonce_group: None,
                nonce: None,
            },
        )
        .await;
    assert_eq!(
        unknown_ns.exception_class(),
        Some("org.apache.hadoop.hbase.NamespaceNotFoundException")
    );
    let empty_split = master
        .call(
            "CreateTable",
            &pb::CreateTableRequest {
                table_schema: schema("x", &["f"]),
                split_keys: vec![Bytes::new()],
                nonce_group: None,
                nonce: None,
            },
        )
        .await;
    assert!(empty_split.exception().is_some());
}

#[tokio::test]
async fn namespaces_round_trip_with_hbase_errors() {
    // Found by the Java client smoke: namespace DDL was not implemented.
    let c = cluster().await;
    let mut master = RawConn::open(c.master_addr(), "MasterService", true).await;
    let ns = |name: &str| pb::NamespaceDescriptor {
        name: b(name),
        configuration: vec![pb::NameStringPair {
            name: "k".into(),
            value: "v".into(),
        }],
    };
    let create = |name: &str| pb::CreateNamespaceRequest {
        namespace_descriptor: ns(name),
        nonce_group: None,
        nonce: None,
    };
    let r: pb::CreateNamespaceResponse = master.call("CreateNamespace", &create("n1")).await.body();
    proc_done(&mut master, r.proc_id.unwrap()).await;
    // HMaster waits for the procedure's prepare step, so its failures are the call's.
    let again = master.call("CreateNamespace", &create("n1")).await;
    assert_eq!(
        again.exception_class(),
        Some("org.apache.hadoop.hbase.NamespaceExistException")
    );
    let bad = master.call("CreateNamespace", &create("a-b")).await;
    assert_eq!(
        bad.exception_class(),
        Some("java.lang.IllegalArgumentException")
    );
    let listed: pb::ListNamespaceDescriptorsResponse = master
        .call(
            "ListNamespaceDescriptors",
            &pb::ListNamespaceDescriptorsRequest {},
        )
        .await
        .body();
    let names: Vec<_> = listed
        .namespace_descriptor
        .iter()
        .map(|d| String::from_utf8_lossy(&d.name).into_owned())
        .collect();
    assert_eq!(names, ["default", "hbase", "n1"]);
    let got: pb::GetNamespaceDescriptorResponse = master
        .call(
            "GetNamespaceDescriptor",
            &pb::GetNamespaceDescriptorRequest {
                namespace_name: "n1".into(),
            },
        )
        .await
        .body();
    assert_eq!(got.namespace_descriptor, ns("n1"));
    let missing = master
        .call(
            "GetNamespaceDescriptor",
            &pb::GetNamespaceDescriptorRequest {
                namespace_name: "nope".into(),
            },
        )
        .await;
    assert_eq!(
        missing.exception_class(),
        Some("org.apache.hadoop.hbase.NamespaceNotFoundException")
    );

    // A table inside it: listed by namespace; the namespace cannot go while it holds one.
    let r: pb::CreateTableResponse = master
        .call(
            "CreateTable",
            &pb::CreateTableRequest {
                table_schema: schema("n1:t", &["f"]),
                split_keys: vec![],
                nonce_group: None,
                nonce: None,
            },
        )
        .await
        .body();
    proc_done(&mut master, r.proc_id.unwrap()).await;
    let tables: pb::ListTableNamesByNamespaceResponse = master
        .call(
            "ListTableNamesByNamespace",
            &pb::ListTableNamesByNamespaceRequest {
                namespace_name: "n1".into(),
            },
        )
        .await
        .body();
    assert_eq!(
        tables.table_name,
        [TableName::parse("n1:t").unwrap().to_pb()]
    );
    let delete = |name: &str| pb::DeleteNamespaceRequest {
        namespace_name: name.into(),
        nonce_group: None,
        nonce: None,
    };
    for (name, class, message) in [
        (
            "n1",
            "org.apache.hadoop.hbase.constraint.ConstraintException",
            "Only empty namespaces can be removed. Namespace n1 has 1 tables",
        ),
        (
            "default",
            "org.apache.hadoop.hbase.constraint.ConstraintException",
            "Reserved namespace default cannot be removed.",
        ),
        (
            "nope",
            "org.apache.hadoop.hbase.NamespaceNotFoundException",
            "nope",
        ),
    ] {
        let r = master.call("DeleteNamespace", &delete(name)).await;
        assert_eq!(r.exception_class(), Some(class), "{name}");
        assert!(
            r.exception()
                .unwrap()
                .stack_trace
                .as_deref()
                .unwrap_or("")
                .contains(message),
            "{name}: {:?}",
            r.exception()
        );
    }
    let r: pb::DisableTableResponse = master
        .call(
            "DisableTable",
            &pb::DisableTableRequest {
                table_name: TableName::parse("n1:t").unwrap().to_pb(),
                nonce_group: None,
                nonce: None,
            },
        )
        .await
        .body();
    proc_done(&mut master, r.proc_id.unwrap()).await;
    let r: pb::DeleteTableResponse = master
        .call(
            "DeleteTable",
            &pb::DeleteTableRequest {
                table_name: TableName::parse("n1:t").unwrap().to_pb(),
                nonce_group: None,
                nonce: None,
            },
        )
        .await
        .body();
    proc_done(&mut master, r.proc_id.unwrap()).await;
    let r: pb::DeleteNamespaceResponse = master.call("DeleteNamespace", &delete("n1")).await.body();
    proc_done(&mut master, r.proc_id.unwrap()).await;
}

#[tokio::test]
async fn flush_table_runs_as_a_procedure() {
    // HBase 2.6's Admin.flush(table) calls MasterService.FlushTable (found by the Java smoke).
    let c = cluster().await;
    let mut master = RawConn::open(c.master_addr(), "MasterService", true).await;
    let flush = |table: &str| pb::FlushTableRequest {
        table_name: TableName::parse(table).unwrap().to_pb(),
        column_family: vec![],
        nonce_group: None,
        nonce: None,
    };
    let r: pb::FlushTableResponse = master.call("FlushTable", &flush("t")).await.body();
    proc_done(&mut master, r.proc_id.unwrap()).await;
    let missing = master.call("FlushTable", &flush("absent")).await;
    assert_eq!(
        missing.exception_class(),
        Some("org.apache.hadoop.hbase.TableNotFoundException")
    );
}
