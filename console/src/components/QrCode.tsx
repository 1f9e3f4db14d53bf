// A QR code for a short text (the otpauth:// link an authenticator app scans), drawn by the
// `qrcode` package as SVG and shown as a data: image, which the console's CSP allows (img-src
// 'self' data:) with no inline script or markup. The text stays on the page beside it.
import { toString as qrSvg } from "qrcode";
import { useEffect, useState } from "react";

export function QrCode({ text, label }: { text: string; label: string }) {
  const [src, setSrc] = useState<string>();
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    let live = true;
    qrSvg(text, { type: "svg", errorCorrectionLevel: "M", margin: 2 }).then(
      (svg) => live && setSrc(`data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`),
      () => live && setFailed(true),
    );
    return () => {
      live = false;
    };
  }, [text]);
  if (failed) return <p className="muted">The QR code could not be drawn: use the key or the link below.</p>;
  return src ? <img className="qr-code" src={src} alt={label} width={200} height={200} data-qr-code /> : null;
}
