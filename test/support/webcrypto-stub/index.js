// fhirclient's browser entry imports isomorphic-webcrypto; Node (and workerd) have WebCrypto built in.
module.exports = globalThis.crypto;
