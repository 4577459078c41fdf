//! A bare-bones HBase RPC client for driving mini-hbase with raw frames, independent of hbclient.

use std::net::SocketAddr;
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use hbclient_proto::frame::{self, ResponseFrame};
use hbclient_proto::pb;
use prost::Message;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// One connection bound to one service.
pub(crate) struct RawConn {
    pub(crate) stream: TcpStream,
    buf: BytesMut,
    next_id: u32,
}

/// A call's answer: its header and the decoded body or exception.
pub(crate) struct Answer {
    pub(crate) frame: ResponseFrame,
}

impl Answer {
    pub(crate) fn call_id(&self) -> u32 {
        self.frame.header.call_id.unwrap()
    }

    pub(crate) fn exception(&self) -> Option<&pb::ExceptionResponse> {
        self.frame.header.exception.as_ref()
    }

    pub(crate) fn exception_class(&self) -> Option<&str> {
        self.exception()
            .and_then(|e| e.exception_class_name.as_deref())
    }

    pub(crate) fn body<M: Message + Default>(&self) -> M {
        if let Some(e) = self.exception() {
            panic!("call failed: {e:?}");
        }
        self.frame.body::<M>("body").expect("body decodes")
    }
}

pub(crate) fn user_header(service: &str, codec: bool) -> pb::ConnectionHeader {
    pb::ConnectionHeader {
        user_info: Some(pb::UserInformation {
            effective_user: "tester".into(),
            real_user: None,
        }),
        service_name: Some(service.into()),
        cell_block_codec_class: codec.then(|| frame::KEY_VALUE_CODEC_CLASS.to_string()),
        // A 2.x client: HBase sends Get results as cellblocks only to clients of 1.3 or later.
        version_info: codec.then(|| pb::VersionInfo {
            version: "2.6.4".into(),
            url: "tests".into(),
            revision: "0".into(),
            user: "tests".into(),
            date: "today".into(),
            src_checksum: "0".into(),
            version_major: Some(2),
            version_minor: Some(6),
        }),
        ..Default::default()
    }
}

impl RawConn {
    /// Connects with the SIMPLE preamble and a header for `service`; `codec` asks for cellblocks.
    pub(crate) async fn open(addr: SocketAddr, service: &str, codec: bool) -> RawConn {
        let mut conn = RawConn::connect_raw(addr).await;
        conn.stream
            .write_all(&frame::SIMPLE_PREAMBLE)
            .await
            .unwrap();
        conn.stream
            .write_all(&frame::encode_connection_header(&user_header(
                service, codec,
            )))
            .await
            .unwrap();
        conn
    }

    /// Connects without sending anything.
    pub(crate) async fn connect_raw(addr: SocketAddr) -> RawConn {
        let stream = TcpStream::connect(addr).await.unwrap();
        RawConn {
            stream,
            buf: BytesMut::new(),
            next_id: 1,
        }
    }

    /// Sends a call; returns its id.
    pub(crate) async fn send(&mut self, method: &str, param: &impl Message, cells: &[u8]) -> u32 {
        let id = self.next_id;
        self.next_id += 1;
        let frame = self.encode(id, method, param, cells);
        self.stream.write_all(&frame).await.unwrap();
        id
    }

    /// Encodes a call without sending it.
    pub(crate) fn encode(
        &self,
        id: u32,
        method: &str,
        param: &impl Message,
        cells: &[u8],
    ) -> Bytes {
        frame::encode_request(
            pb::RequestHeader {
                call_id: Some(id),
                method_name: Some(method.into()),
                timeout: Some(10_000),
                ..Default::default()
            },
            param,
            cells,
        )
    }

    /// Reads the next answer (panics after 10 s or on EOF).
    pub(crate) async fn recv(&mut self) -> Answer {
        self.try_recv(Duration::from_secs(10))
            .await
            .expect("an answer before the timeout")
            .expect("connection open")
    }

    /// Reads the next answer: `Err` on timeout, `Ok(None)` on EOF.
    pub(crate) async fn try_recv(&mut self, wait: Duration) -> Result<Option<Answer>, ()> {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            if let Some(body) =
                frame::take_frame(&mut self.buf, frame::DEFAULT_MAX_FRAME_LEN).unwrap()
            {
                let frame = ResponseFrame::decode(body).expect("response decodes");
                return Ok(Some(Answer { frame }));
            }
            match tokio::time::timeout_at(deadline, self.stream.read_buf(&mut self.buf)).await {
                Err(_) => return Err(()),
                Ok(Ok(0)) | Ok(Err(_)) => return Ok(None),
                Ok(Ok(_)) => {}
            }
        }
    }

    /// Sends a call and waits for its answer.
    pub(crate) async fn call(&mut self, method: &str, param: &impl Message) -> Answer {
        self.call_with_cells(method, param, &[]).await
    }

    /// Sends a call with a cellblock and waits for its answer.
    pub(crate) async fn call_with_cells(
        &mut self,
        method: &str,
        param: &impl Message,
        cells: &[u8],
    ) -> Answer {
        let id = self.send(method, param, cells).await;
        let answer = self.recv().await;
        assert_eq!(
            answer.call_id(),
            id,
            "answers arrive in order when one call is in flight"
        );
        answer
    }
}
