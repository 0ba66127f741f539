//! Shared test support. Each integration test uses only a part of it, hence the allow.
#![allow(dead_code)]

pub mod child;
pub mod fake_ollama;
pub mod files;
pub mod session;
