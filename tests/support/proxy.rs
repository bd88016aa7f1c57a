//! An HTTP CONNECT proxy, as a kubeconfig `proxy-url` names: it records each CONNECT
//! target and tunnels every connection to one upstream address, whatever was asked for,
//! so a cluster name that does not resolve still reaches the test server.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};

pub struct Proxy {
    pub url: String,
    targets: Arc<Mutex<Vec<String>>>,
}

impl Proxy {
    /// A proxy that tunnels to `upstream` (host:port).
    pub fn start(upstream: &str) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let targets = Arc::new(Mutex::new(Vec::new()));
        let seen = targets.clone();
        let upstream = upstream.to_string();
        std::thread::spawn(move || {
            for client in listener.incoming().flatten() {
                let seen = seen.clone();
                let upstream = upstream.clone();
                std::thread::spawn(move || tunnel(client, &upstream, &seen));
            }
        });
        Proxy { url, targets }
    }

    /// The host:port of every CONNECT, in order.
    pub fn targets(&self) -> Vec<String> {
        self.targets.lock().unwrap().clone()
    }
}

fn tunnel(client: TcpStream, upstream: &str, seen: &Mutex<Vec<String>>) {
    let mut reader = BufReader::new(client.try_clone().unwrap());
    let mut request_line = String::new();
    if reader.read_line(&mut request_line).is_err() {
        return;
    }
    // Headers end at the first empty line.
    loop {
        let mut line = String::new();
        match reader.read_line(&mut line) {
            Ok(0) | Err(_) => return,
            Ok(_) if line == "\r\n" => break,
            Ok(_) => {}
        }
    }
    let mut words = request_line.split_whitespace();
    let mut client = client;
    if words.next() != Some("CONNECT") {
        let _ = client.write_all(b"HTTP/1.1 405 Method Not Allowed\r\ncontent-length: 0\r\n\r\n");
        return;
    }
    seen.lock()
        .unwrap()
        .push(words.next().unwrap_or_default().to_string());
    let Ok(server) = TcpStream::connect(upstream) else {
        let _ = client.write_all(b"HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\n\r\n");
        return;
    };
    if client
        .write_all(b"HTTP/1.1 200 Connection established\r\n\r\n")
        .is_err()
    {
        return;
    }
    // Reading on from `reader` first yields what it has buffered past the headers.
    let mut to_server = server.try_clone().unwrap();
    let mut from_server = server;
    let mut to_client = client.try_clone().unwrap();
    let up = std::thread::spawn(move || {
        let _ = std::io::copy(&mut reader, &mut to_server);
        let _ = to_server.shutdown(std::net::Shutdown::Write);
    });
    let _ = std::io::copy(&mut from_server, &mut to_client);
    let _ = to_client.shutdown(std::net::Shutdown::Write);
    let _ = up.join();
}
