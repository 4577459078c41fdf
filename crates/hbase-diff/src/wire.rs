//! A bare HBase RPC connection built from `hbclient-proto` frames only (no client logic).

use std::net::SocketAddr;
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use hbclient_proto::frame::{self, ResponseFrame};
use hbclient_proto::pb;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// How a connection introduces itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ConnOpts {
    /// Declare the KeyValue cellblock codec.
    pub codec: bool,
    /// Send a `VersionInfo` with this version string.
    pub version: Option<&'static str>,
}

impl ConnOpts {
    /// What the Java 2.6 client declares: the codec and its version.
    pub(crate) const JAVA: ConnOpts = ConnOpts {
        codec: true,
        version: Some("2.6.4"),
    };
    /// No codec, no version: every cell travels inside protobuf.
    pub(crate) const PLAIN: ConnOpts = ConnOpts {
        codec: false,
        version: None,
    };
    /// What gohbase declares: the codec, no version.
    pub(crate) const GOHBASE: ConnOpts = ConnOpts {
        codec: true,
        version: None,
    };
}

/// One connection bound to one service.
pub(crate) struct Conn {
    stream: TcpStream,
    buf: BytesMut,
    next_id: u32,
}

/// A connection header for `service`.
pub(crate) fn header(service: &str, opts: ConnOpts) -> pb::ConnectionHeader {
    pb::ConnectionHeader {
        user_info: Some(pb::UserInformation {
            effective_user: "hbase-diff".into(),
            real_user: None,
        }),
        service_name: Some(service.into()),
        cell_block_codec_class: opts.codec.then(|| frame::KEY_VALUE_CODEC_CLASS.to_string()),
        version_info: opts.version.map(version_info),
        ..Default::default()
    }
}

/// A `VersionInfo` claiming `version` (`major.minor.patch`).
pub(crate) fn version_info(version: &str) -> pb::VersionInfo {
    let mut parts = version.split('.').map(|p| p.parse::<u32>().ok());
    pb::VersionInfo {
        version: version.into(),
        url: "hbase-diff".into(),
        revision: "0".into(),
        user: "hbase-diff".into(),
        date: "today".into(),
        src_checksum: "0".into(),
        version_major: parts.next().flatten(),
        version_minor: parts.next().flatten(),
    }
}

impl Conn {
    /// Connects with the SIMPLE preamble and a header for `service`.
    pub(crate) async fn open(
        addr: SocketAddr,
        service: &str,
        opts: ConnOpts,
    ) -> std::io::Result<Conn> {
        let mut stream = TcpStream::connect(addr).await?;
        stream.set_nodelay(true)?;
        stream.write_all(&frame::SIMPLE_PREAMBLE).await?;
        stream
            .write_all(&frame::encode_connection_header(&header(service, opts)))
            .await?;
        Ok(Conn {
            stream,
            buf: BytesMut::new(),
            next_id: 1,
        })
    }

    /// Sends one call with an already-encoded parameter and waits for its answer.
    pub(crate) async fn call(
        &mut self,
        method: &str,
        param: &Bytes,
        cells: &[u8],
    ) -> Result<ResponseFrame, String> {
        let id = self.next_id;
        self.next_id += 1;
        let frame = frame::encode_request(
            pb::RequestHeader {
                call_id: Some(id),
                method_name: Some(method.into()),
                timeout: Some(20_000),
                ..Default::default()
            },
            &RawParam(param.clone()),
            cells,
        );
        self.stream
            .write_all(&frame)
            .await
            .map_err(|e| format!("write: {e}"))?;
        match self.recv(Duration::from_secs(30)).await {
            Some(answer) if answer.header.call_id == Some(id) => Ok(answer),
            Some(answer) => Err(format!(
                "answer for call {:?} while waiting for {id}: {:?}",
                answer.header.call_id, answer.header.exception
            )),
            None => Err("connection closed or no answer".into()),
        }
    }

    /// Next frame, or `None` on EOF or after `wait`.
    pub(crate) async fn recv(&mut self, wait: Duration) -> Option<ResponseFrame> {
        read_frame(&mut self.stream, &mut self.buf, wait).await
    }
}

/// Reads one response frame from `stream`.
pub(crate) async fn read_frame(
    stream: &mut TcpStream,
    buf: &mut BytesMut,
    wait: Duration,
) -> Option<ResponseFrame> {
    let deadline = tokio::time::Instant::now() + wait;
    loop {
        if let Ok(Some(body)) = frame::take_frame(buf, frame::DEFAULT_MAX_FRAME_LEN) {
            return ResponseFrame::decode(body).ok();
        }
        match tokio::time::timeout_at(deadline, stream.read_buf(buf)).await {
            Err(_) | Ok(Ok(0)) | Ok(Err(_)) => return None,
            Ok(Ok(_)) => {}
        }
    }
}

/// An already-encoded message, written as is.
#[derive(Debug, Clone, Default, PartialEq)]
struct RawParam(Bytes);

impl prost::Message for RawParam {
    fn encode_raw(&self, buf: &mut impl bytes::BufMut) {
        buf.put_slice(&self.0);
    }
    fn merge_field(
        &mut self,
        _tag: u32,
        _wire_type: prost::encoding::WireType,
        _buf: &mut impl bytes::Buf,
        _ctx: prost::encoding::DecodeContext,
    ) -> Result<(), prost::DecodeError> {
        unreachable!("only encoded")
    }
    fn encoded_len(&self) -> usize {
        self.0.len()
    }
    fn clear(&mut self) {
        self.0 = Bytes::new();
    }
}
