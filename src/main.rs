fn main() -> std::process::ExitCode {
    std::process::ExitCode::from(mahjong_league::cli::run())
}
