//! Kubelet container hash (see issue 4).
